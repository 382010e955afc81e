"""Greetings, plain questions without error text, and plain Python errors in the asker's own
code. All written by hand; none names a symptom of a covered class (no out-of-memory, no
worker crashes, no state_dict loading, no dtype or device questions)."""

from __future__ import annotations

from .negative_line import GREETING, QUESTION, WRITTEN, neg

Q, G, P = "neg-question", "neg-greeting", "neg-python"

ITEMS = [
    # ---- greetings and thanks ---------------------------------------------------------
    neg(G, "en", GREETING, "hi"),
    neg(G, "en", GREETING, "hello there 👋"),
    neg(G, "en", GREETING, "<@U02TROUBLE> hey, you around?"),
    neg(G, "en", GREETING, "thanks, that fixed it!"),
    neg(G, "en", GREETING, "good morning team"),
    neg(G, "ko", GREETING, "안녕하세요"),
    neg(G, "ko", GREETING, "안녕하세요~ 혹시 지금 질문 좀 드려도 될까요?"),
    neg(G, "ko", GREETING, "감사합니다! 덕분에 해결했어요 🙏"),
    neg(G, "ko", GREETING, "<@U02TROUBLE> 봇아 안녕"),
    neg(G, "zh", GREETING, "你好"),
    neg(G, "zh", GREETING, "你好，能帮我看看吗"),
    neg(G, "zh", GREETING, "谢谢，问题解决了！"),
    neg(G, "zh", GREETING, "大家早上好"),
    # ---- plain questions --------------------------------------------------------------
    neg(Q, "en", QUESTION, "how do I pick a learning rate?"),
    neg(Q, "en", QUESTION, "Is AdamW or Lion a better default for fine-tuning a 7B model with LoRA?"),
    neg(Q, "en", QUESTION, "what warmup ratio do people usually use for a cosine schedule?"),
    neg(Q, "en", QUESTION, "Does label smoothing still help when the dataset already has noisy labels?"),
    neg(Q, "en", QUESTION, "what's a sensible weight decay for ViT-B on ImageNet-1k?"),
    neg(Q, "en", QUESTION, "how should I split train/val when the same patient appears in many images?"),
    neg(Q, "en", QUESTION, "Any recommendations for an experiment tracker that works on an air-gapped cluster?"),
    neg(Q, "en", QUESTION, "can someone review my PR for the augmentation pipeline? it's #412"),
    neg(Q, "en", QUESTION, "what does the `bins` argument of torch.histc do exactly?"),
    neg(Q, "ko", QUESTION, "학습률은 보통 어떻게 정하시나요? lr finder 같은 걸 쓰시나요?"),
    neg(Q, "ko", QUESTION, "데이터 증강을 너무 세게 하면 검증 정확도가 오히려 떨어지나요?"),
    neg(Q, "ko", QUESTION, "배치 크기를 두 배로 늘리면 학습률도 두 배로 올려야 하나요?"),
    neg(Q, "ko", QUESTION, "사내 GPU 서버 예약은 어디서 하나요?"),
    neg(Q, "ko", QUESTION, "F1이랑 AUROC 중에 불균형 데이터에서는 뭘 보는 게 맞을까요?"),
    neg(Q, "ko", QUESTION, "LoRA rank는 몇으로 시작하는 게 좋을까요?"),
    neg(Q, "zh", QUESTION, "学习率一般怎么选？有没有经验值？"),
    neg(Q, "zh", QUESTION, "微调 BERT 做分类，冻结前几层会不会更好？"),
    neg(Q, "zh", QUESTION, "验证集的 loss 先降后升，是不是过拟合了？该早停吗？"),
    neg(Q, "zh", QUESTION, "有人比较过 cosine 和 step 两种学习率衰减吗？"),
    neg(Q, "zh", QUESTION, "数据集类别不平衡，用 focal loss 还是重采样比较好？"),
    neg(Q, "zh", QUESTION, "组里的实验记录统一放在哪个 wiki 页面？"),
    neg(Q, "en", QUESTION, "```\nfor epoch in range(num_epochs):\n    train_one_epoch(model, loader, opt)\n```\nis it better to call the scheduler per step or per epoch here? nothing is broken, just asking"),
    neg(Q, "ko", QUESTION, "EMA 가중치를 쓰면 보통 얼마나 좋아지나요? 감쇠율은 0.999면 되나요?"),
    # ---- plain Python errors in the asker's own code ------------------------------------
    neg(P, "en", WRITTEN, r"""
Traceback (most recent call last):
  File "/home/mina/proj/prep/make_splits.py", line 41, in <module>
    labels = meta["label"]
KeyError: 'label'
"""),
    neg(P, "en", WRITTEN, r"""
Traceback (most recent call last):
  File "train.py", line 12, in <module>
    cfg = json.load(open("configs/base.json"))
FileNotFoundError: [Errno 2] No such file or directory: 'configs/base.json'
"""),
    neg(P, "en", WRITTEN, r"""
  File "/workspace/exp/train.py", line 88
    for step, batch in enumerate(loader)
                                        ^
SyntaxError: expected ':'
"""),
    neg(P, "ko", WRITTEN, r"""
설정 파일을 읽는 부분에서 에러가 나요

Traceback (most recent call last):
  File "C:\Users\jiho\work\run.py", line 7, in <module>
    cfg = json.loads(text)
  File "C:\Python311\Lib\json\__init__.py", line 346, in loads
    return _default_decoder.decode(s)
  File "C:\Python311\Lib\json\decoder.py", line 337, in decode
    obj, end = self.raw_decode(s, idx=_w(s, 0))
  File "C:\Python311\Lib\json\decoder.py", line 355, in raw_decode
    raise JSONDecodeError("Expecting value", s, err.value) from None
json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)
"""),
    neg(P, "zh", WRITTEN, r"""
读标注文件的时候报编码错误：
UnicodeDecodeError: 'utf-8' codec can't decode byte 0xc4 in position 0: invalid continuation byte
"""),
    neg(P, "en", WRITTEN, r"""
Traceback (most recent call last):
  File "eval.py", line 30, in <module>
    print("acc: " + correct / total)
TypeError: can only concatenate str (not "float") to str
"""),
    neg(P, "en", WRITTEN, r"""
Traceback (most recent call last):
  File "/srv/jobs/ingest.py", line 5, in <module>
    from utils.io import read_shards
ModuleNotFoundError: No module named 'utils.io'
"""),
    neg(P, "ko", WRITTEN, r"""
재귀로 트리 순회하는 코드인데 깊은 데이터에서만 터집니다
RecursionError: maximum recursion depth exceeded in comparison
"""),
    neg(P, "en", WRITTEN, r"""
  File "/home/ci/runner/work/repo/tools/report.py", line 52, in summarize
    width = img.shape[1]
AttributeError: 'NoneType' object has no attribute 'shape'
"""),
    neg(P, "zh", WRITTEN, r"""
改了两行代码就跑不起来了：
  File "collect.py", line 19
    return rows
    ^
IndentationError: unexpected indent
"""),
    neg(P, "en", WRITTEN, r"""
Traceback (most recent call last):
  File "split.py", line 14, in <module>
    ratio = n_val / n_total
ZeroDivisionError: division by zero
"""),
    neg(P, "en", WRITTEN, r"""
PermissionError: [Errno 13] Permission denied: '/mnt/shared/checkpoints/run_0412'
"""),
]
