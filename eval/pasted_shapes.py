"""Pasted errors about tensor dtypes, shapes, views, indices and cross-entropy targets."""

from __future__ import annotations

from .render import (CALL, CROSS_ENTROPY, EMBEDDING, LINEAR, at, captured, captured_rows, exc_line, fence,
                     rich_box, sp, traceback)
from .sample import RAN, known, known_cuda, sample

ITEMS: list[dict] = []


def add(*args) -> None:
    ITEMS.append(sample(*args))


NEW_WORDING = "torch 2.13 wording (eval/capture_messages.py) with other numbers; frames written by hand"


# --- pytorch/dtype-mismatch ----------------------------------------------------------
ID = "pytorch/dtype-mismatch"

add(ID, "prose-ko", "ko", RAN,
    "판다스에서 읽은 데이터를 torch.from_numpy(df.values)로 바꿔서 넣었는데 첫 레이어에서 에러나요. 모델은 그냥 nn.Linear 몇 개예요.\n"
    + fence(traceback([
        ("/home/jiwoo/work/house/train.py", 44, "<module>", "pred = model(xb)\n       ^^^^^^^^^"),
        *at("venv312", CALL["2.13"]),
        ("/home/jiwoo/work/house/model.py", 15, "forward", "return self.net(x)\n       ^^^^^^^^^^^"),
        *at("venv312", CALL["2.13"]),
        *at("venv312", LINEAR["2.13"]),
    ], exc_line("dtype_linear_double"))))

add(ID, "line", "en", known("2.0-2.2"), "RuntimeError: mat1 and mat2 must have the same dtype")

add(ID, "traceback", "en", known("1.10"),
    traceback([
        (r"C:\Users\Chen Wei\stock\lstm_forecast.py", 71, "<module>", "y_pred = model(X_train)"),
        *at("win2", CALL["1.10"]),
        (r"C:\Users\Chen Wei\stock\lstm_forecast.py", 38, "forward", "out, _ = self.lstm(x, (h0, c0))"),
        *at("win2", CALL["1.10"]),
        (sp("win2", "torch/nn/modules/rnn.py"), 691, "forward",
         "result = _VF.lstm(input, hx, self._flat_weights, self.bias, self.num_layers,"),
    ], "RuntimeError: expected scalar type Float but found Double"))

add(ID, "traceback", "en", RAN + "; Colab layout",
    """
---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
[<ipython-input-8-c2d94b7e01fa>](https://localhost:8080/#) in <cell line: 0>()
      1 img = torch.from_numpy(np.load("sample.npy")).unsqueeze(0)
----> 2 logits = cnn(img)

5 frames
[/usr/local/lib/python3.11/dist-packages/torch/nn/modules/conv.py](https://localhost:8080/#) in _conv_forward(self, input, weight, bias)
    547                 self.groups,
    548             )
--> 549         return F.conv2d(
    550             input, weight, bias, self.stride, self.padding, self.dilation, self.groups
    551         )

RuntimeError: """ + captured("dtype_conv_double")["message"])

add(ID, "prose-zh", "zh", known("1.3-1.5"),
    "老项目（torch 1.4）跑自己的数据就报这个，数据是 numpy 读进来的：\n"
    "RuntimeError: Expected object of scalar type Float but got scalar type Double for argument #2 'mat1' in call to _th_addmm")

add(ID, "traceback", "en", RAN + "; Jupyter layout",
    """
---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
Cell In[31], line 3
      1 W = torch.randn(64, 10)
      2 feats = torch.tensor(embeddings)
----> 3 scores = feats @ W

RuntimeError: """ + captured("dtype_matmul")["message"])

add(ID, "prose-en", "en", known_cuda("1.x"),
    "moved everything to the GPU and now the first conv complains. the images come out of an h5 file\n"
    "RuntimeError: Input type (torch.cuda.DoubleTensor) and weight type (torch.cuda.FloatTensor) should be the same")

add(ID, "prose-zh", "zh", known_cuda("1.x-2.x"),
    "自己写的 attention 在 torch.autocast 里跑，mask 是 float32 的，报：\n"
    + fence(traceback([
        ("/home/liuyang/nlp/layers.py", 57, "forward", "scores = torch.baddbmm(mask, q, k.transpose(1, 2), beta=1.0, alpha=self.scale)"),
    ], "RuntimeError: expected scalar type Half but found Float")))

add(ID, "truncated", "en", known("1.x-2.0") + "; only the end of the traceback",
    '''    torch.autograd.backward(
  File "/opt/conda/lib/python3.8/site-packages/torch/autograd/__init__.py", line 197, in backward
    Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
RuntimeError: Found dtype Double but expected Float''')


# --- pytorch/shape-matmul ------------------------------------------------------------
ID = "pytorch/shape-matmul"

add(ID, "traceback", "en", known("1.10-2.x"),
    traceback([
        ("/home/alice/proj/fashion/train.py", 64, "<module>", "outputs = model(images)"),
        *at("conda310", CALL["2.3"]),
        ("/home/alice/proj/fashion/model.py", 31, "forward", "x = F.relu(self.fc1(x))"),
        *at("conda310", CALL["2.3"]),
        *at("conda310", LINEAR["2.3"]),
    ], "RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x12544 and 3136x128)"))

add(ID, "traceback", "en", known_cuda("1.0-1.6"),
    traceback([
        ("train.py", 132, "<module>", "output = net(inputs)"),
        *at("/home/kim/.conda/envs/torch14/lib/python3.7/site-packages", CALL["1.4"]),
        ("/home/kim/cifar/models/vgg.py", 29, "forward", "out = self.classifier(out)"),
        *at("/home/kim/.conda/envs/torch14/lib/python3.7/site-packages", CALL["1.4"]),
        *at("/home/kim/.conda/envs/torch14/lib/python3.7/site-packages", LINEAR["1.4"]),
    ], "RuntimeError: size mismatch, m1: [64 x 2048], m2: [512 x 10] at "
       "/pytorch/aten/src/THC/generic/THCTensorMathBlas.cu:290"))

add(ID, "line", "en", known("1.7-1.9"), "RuntimeError: mat1 dim 1 must match mat2 dim 0")

add(ID, "prose-ko", "ko", known("2.x") + "; Colab layout",
    "AlexNet 구조 따라서 짰는데 입력을 256x256으로 넣었더니 classifier에서 에러나요. 224로 넣으면 괜찮아요.\n"
    """---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
[<ipython-input-12-47b0e3a9c6d1>](https://localhost:8080/#) in <cell line: 0>()
----> 1 out = model(torch.randn(16, 3, 256, 256))

6 frames
[/usr/local/lib/python3.10/dist-packages/torch/nn/modules/linear.py](https://localhost:8080/#) in forward(self, input)
    115 
    116     def forward(self, input: Tensor) -> Tensor:
--> 117         return F.linear(input, self.weight, self.bias)
    118 
    119     def extra_repr(self) -> str:

RuntimeError: mat1 and mat2 shapes cannot be multiplied (16x12544 and 9216x4096)""")

add(ID, "prose-zh", "zh", known("1.10-2.x"),
    "手写了一个 self-attention，q 和 k 相乘那一步报错，我用的是 torch.mm(q, k)：\n"
    "RuntimeError: mat1 and mat2 shapes cannot be multiplied (128x64 and 128x64)\n是不是要转置？")

add(ID, "truncated", "en", known("1.10-2.x") + ", cut inside the shapes",
    "RuntimeError: mat1 and mat2 shapes cannot be multiplied (8x7")

add(ID, "traceback", "en", known("2.0-2.4") + "; rich box layout",
    rich_box([
        ("/home/alice/proj/nli/run.py", 140, "main", [
            (137, "    for batch in tqdm(loader):"),
            (138, "        hidden = encoder(**batch).last_hidden_state[:, 0]"),
            (139, "        hidden = dropout(hidden)"),
            (140, "        logits = head(hidden)"),
            (141, "        loss = loss_fn(logits, batch[\"labels\"])"),
        ]),
        (sp("conda310", "torch/nn/modules/linear.py"), 116, "forward", [
            (114, ""),
            (115, "    def forward(self, input: Tensor) -> Tensor:"),
            (116, "        return F.linear(input, self.weight, self.bias)"),
            (117, ""),
        ]),
    ], "RuntimeError: mat1 and mat2 shapes cannot be multiplied (32x768 and 1024x2)"))

add(ID, "traceback", "en", NEW_WORDING,
    traceback([
        (r"C:\Users\minji\Desktop\transfer\finetune.py", 58, "<module>", "logits = model(imgs)"),
        *at("win", CALL["2.13"]),
        (r"C:\Users\minji\Desktop\transfer\finetune.py", 27, "forward", "return self.fc(torch.flatten(feats, 1))"),
        *at("win", CALL["2.13"]),
        *at("win", LINEAR["2.13"]),
    ], "RuntimeError: mat1 and mat2 shapes cannot be multiplied (1x512 and 2048x10)"))


# --- pytorch/view-stride -------------------------------------------------------------
ID = "pytorch/view-stride"
VIEW_NEW = captured("view_stride")["message"]
VIEW_OLD = ("view size is not compatible with input tensor's size and stride (at least one dimension spans across "
            "two contiguous subspaces). Call .contiguous() before .view().")

add(ID, "traceback", "en", RAN,
    traceback([
        ("/home/jiwoo/work/gpt/train.py", 210, "<module>", "logits, loss = model(X, Y)\n                   ^^^^^^^^^^^"),
        *at("venv312", CALL["2.13"]),
        ("/home/jiwoo/work/gpt/model.py", 62, "forward",
         "y = y.transpose(1, 2).view(B, T, C)\n    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
    ], "RuntimeError: " + VIEW_NEW))

add(ID, "prose-ko", "ko", known("1.x"),
    "permute 하고 나서 view로 펴려고 하니까 이렇게 나와요. reshape 쓰면 되긴 하는데 이유가 궁금해요.\n"
    "```\nx = feat.permute(0, 2, 3, 1)\nx = x.view(x.size(0), -1)\n```\nRuntimeError: " + VIEW_OLD)

add(ID, "line", "en", known("0.4-1.0"),
    "RuntimeError: invalid argument 2: " + VIEW_OLD + " at /pytorch/aten/src/TH/generic/THTensor.cpp:213")

add(ID, "prose-zh", "zh", RAN,
    "把 (B, C, H, W) 的特征 permute 成 (B, H, W, C) 之后 .view(B, -1, C) 就报错，换成 flatten 也不行，这个报错什么意思？\n"
    + fence("RuntimeError: " + VIEW_NEW))

add(ID, "truncated", "en", "torch 2.13 message cut mid-word",
    "RuntimeError: view size is not compatible with input tensor's size and stride (at least one dimension spans across two contig")

add(ID, "traceback", "en", RAN + "; Colab layout",
    """
---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
[<ipython-input-4-91d2f0a3b7c5>](https://localhost:8080/#) in <cell line: 0>()
      1 W_t = W.t()
----> 2 flat = W_t.view(-1)
      3 print(flat.shape)

RuntimeError: """ + VIEW_NEW)

add(ID, "traceback", "en", known("2.x"),
    traceback([
        (r"D:\projects\ssd\train.py", 97, "<module>", "loc, conf = net(images)"),
        *at("win3", CALL["2.1"]),
        (r"D:\projects\ssd\ssd.py", 118, "forward", "conf = torch.cat([o.permute(0, 2, 3, 1).view(o.size(0), -1) for o in conf], 1)"),
    ], "RuntimeError: " + VIEW_NEW))


# --- pytorch/index-out-of-range ------------------------------------------------------
ID = "pytorch/index-out-of-range"
IOOR = "IndexError: index out of range in self"

add(ID, "traceback", "en", RAN + "; transformers frames written by hand",
    traceback([
        ("/home/alice/proj/ner/train.py", 91, "<module>", "outputs = model(**batch)"),
        *at("alice311", CALL["2.13"]),
        (sp("alice311", "transformers/models/bert/modeling_bert.py"), 1078, "forward", "embedding_output = self.embeddings("),
        *at("alice311", CALL["2.13"]),
        (sp("alice311", "transformers/models/bert/modeling_bert.py"), 211, "forward", "inputs_embeds = self.word_embeddings(input_ids)"),
        *at("alice311", CALL["2.13"]),
        *at("alice311", EMBEDDING["2.13"]),
    ], exc_line("index_out_of_range")))

add(ID, "prose-en", "en", known("1.0-1.4"),
    "added two special tokens to the tokenizer and now the model crashes on the first batch (torch 1.4):\n"
    "RuntimeError: index out of range: Tried to access index 30522 out of table with 30521 rows. at "
    "/pytorch/aten/src/TH/generic/THTensorEvenMoreMath.cpp:418")

add(ID, "prose-ko", "ko", known("2.1"),
    "긴 문서 분류하려고 max_length=1024로 토크나이즈했는데 KLUE BERT에서 에러가 나요. 512로 하면 잘 돌아가요.\n"
    + fence(traceback([
        ("/home/hyunwoo/doc-cls/run.py", 88, "<module>", "out = model(input_ids=ids, attention_mask=mask)"),
        (sp("/home/hyunwoo/.venv/lib/python3.10/site-packages", "transformers/models/bert/modeling_bert.py"), 238,
         "forward", "position_embeddings = self.position_embeddings(position_ids)"),
        *at("/home/hyunwoo/.venv/lib/python3.10/site-packages", CALL["2.1"]),
        *at("/home/hyunwoo/.venv/lib/python3.10/site-packages", EMBEDDING["2.1"]),
    ], IOOR)))

add(ID, "prose-zh", "zh", known("1.5+"),
    "推荐模型里 user_id 直接用了原始 ID（最大到 98万多），nn.Embedding(num_users, 64) 的 num_users 是去重后的用户数，"
    "一跑就报：\n" + IOOR)

add(ID, "line", "en", known("1.5+ (unchanged)"), IOOR)

add(ID, "traceback", "en", known("1.13") + "; Colab layout",
    """
---------------------------------------------------------------------------
IndexError                                Traceback (most recent call last)
[<ipython-input-10-6a1c9e3f5b02>](https://localhost:8080/#) in <module>
      5 for ids, y in loader:
----> 6     logits = clf(ids)
      7     loss = F.cross_entropy(logits, y)

3 frames
[/usr/local/lib/python3.8/dist-packages/torch/nn/functional.py](https://localhost:8080/#) in embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse)
   2208         # remove once script supports set_grad_enabled
   2209         _no_grad_embedding_renorm_(weight, input, max_norm, norm_type)
-> 2210     return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
   2211 
   2212 

IndexError: index out of range in self""")

add(ID, "truncated", "en", known("2.1") + "; middle of the traceback, cut mid-word",
    traceback(at("conda310", EMBEDDING["2.1"]), "IndexError: index out of range in se", header=False))

add(ID, "traceback", "en", known("2.x") + "; IPython 8 output with ANSI colour codes",
    "\x1b[0;31m---------------------------------------------------------------------------\x1b[0m\n"
    "\x1b[0;31mIndexError\x1b[0m                                Traceback (most recent call last)\n"
    "Cell \x1b[0;32mIn[42], line 2\x1b[0m\n"
    "\x1b[1;32m      1\x1b[0m idx \x1b[38;5;241m=\x1b[39m torch\x1b[38;5;241m.\x1b[39mtensor(neighbors)\n"
    "\x1b[0;32m----> 2\x1b[0m picked \x1b[38;5;241m=\x1b[39m \x1b[43mtorch\x1b[49m\x1b[38;5;241;43m.\x1b[39;49m\x1b[43mindex_select\x1b[49m\x1b[43m(\x1b[49m\x1b[43mnode_feats\x1b[49m\x1b[43m,\x1b[49m\x1b[43m \x1b[49m\x1b[38;5;241;43m0\x1b[39;49m\x1b[43m,\x1b[49m\x1b[43m \x1b[49m\x1b[43midx\x1b[49m\x1b[43m)\x1b[49m\n\n"
    "\x1b[0;31mIndexError\x1b[0m: index out of range in self")


# --- pytorch/cross-entropy-target ----------------------------------------------------
ID = "pytorch/cross-entropy-target"

add(ID, "traceback", "en", RAN,
    traceback([
        ("/home/alice/proj/intent/train.py", 77, "<module>", "loss = criterion(logits, labels)\n       ^^^^^^^^^^^^^^^^^^^^^^^^^"),
        *at("alice311", CALL["2.13"]),
        *at("alice311", CROSS_ENTROPY["2.13"]),
    ], exc_line("ce_multi_target")))

add(ID, "line", "en", known_cuda("0.4-1.0"),
    "RuntimeError: multi-target not supported at /pytorch/aten/src/THCUNN/generic/ClassNLLCriterion.cu:15")

add(ID, "prose-ko", "ko", known("1.6-1.9"),
    "라벨을 원-핫으로 만들어서 CrossEntropyLoss에 넣었더니 이렇게 나오네요. 라벨 shape은 (batch, 5)예요.\n"
    + fence(traceback([
        ("train.py", 61, "<module>", "loss = criterion(output, target)"),
        *at("/home/sooyeon/anaconda3/lib/python3.8/site-packages", CALL["1.7"]),
        ("/home/sooyeon/anaconda3/lib/python3.8/site-packages/torch/nn/modules/loss.py", 961, "forward",
         "return F.cross_entropy(input, target, weight=self.weight,"),
        ("/home/sooyeon/anaconda3/lib/python3.8/site-packages/torch/nn/functional.py", 2468, "cross_entropy",
         "return nll_loss(log_softmax(input, 1), target, weight, None, ignore_index, None, reduction)"),
        ("/home/sooyeon/anaconda3/lib/python3.8/site-packages/torch/nn/functional.py", 2264, "nll_loss",
         "ret = torch._C._nn.nll_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index)"),
    ], "RuntimeError: 1D target tensor expected, multi-target not supported")))

add(ID, "prose-zh", "zh", RAN + "; Colab layout",
    "做序列标注，logits 是 (batch, num_tags, seq_len)，labels 是从 DataLoader 出来的，算 loss 时报：\n"
    """RuntimeError                              Traceback (most recent call last)
[<ipython-input-15-d08b3c7f2e61>](https://localhost:8080/#) in <cell line: 0>()
      3     logits = tagger(tokens)
----> 4     loss = F.cross_entropy(logits, labels)

[/usr/local/lib/python3.11/dist-packages/torch/nn/functional.py](https://localhost:8080/#) in cross_entropy(input, target, weight, size_average, ignore_index, reduce, reduction, label_smoothing)
   3492     if size_average is not None or reduce is not None:
   3493         reduction = _Reduction.legacy_get_string(size_average, reduce)
-> 3494     return torch._C._nn.cross_entropy_loss(
   3495         input,
   3496         target,

RuntimeError: """ + captured("ce_target_size")["message"])

add(ID, "prose-en", "en", known("1.x"),
    "semantic seg, masks are loaded as RGB pngs. logits are (4, 21, 256, 256). what am I missing?\n"
    "ValueError: Expected target size (4, 256, 256), got torch.Size([4, 3, 256, 256])")

add(ID, "traceback", "en", known("2.x"),
    traceback([
        (r"C:\Users\minji\Desktop\pos-tagger\train.py", 83, "<module>", "loss = loss_fn(scores, tags)"),
        *at("win", CALL["2.1"]),
        *at("win", CROSS_ENTROPY["2.3"]),
    ], "RuntimeError: Expected target size [32, 10], got [32, 50]"))

add(ID, "truncated", "en", "torch 2.13 message cut mid-word", "RuntimeError: 0D or 1D target tensor expected, multi-targ")


# --- pytorch/ce-target-dtype ---------------------------------------------------------
ID = "pytorch/ce-target-dtype"

add(ID, "prose-ko", "ko", known("1.10-2.0"),
    "회귀에서 분류로 바꾸면서 라벨을 float로 그대로 뒀더니 loss 계산에서 에러가 나요.\n"
    + fence(traceback([
        ("/home/minsu/churn/train.py", 58, "<module>", "loss = criterion(out, y)"),
        *at("conda38", CALL["1.10"]),
        *at("conda38", CROSS_ENTROPY["1.10"]),
    ], "RuntimeError: expected scalar type Long but found Float")))

add(ID, "line", "en", known("1.0-1.5"),
    "RuntimeError: Expected object of scalar type Long but got scalar type Float for argument #2 'target' in call to _thnn_nll_loss_forward")

add(ID, "prose-zh", "zh", known_cuda("1.10-2.x") + "; Colab layout",
    "标签是从 csv 里读的 float，放到 GPU 上算 CrossEntropyLoss 报了这个，CPU 上报的又是另一个：\n"
    """---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
[<ipython-input-7-b5e1d3a09c44>](https://localhost:8080/#) in <cell line: 0>()
      8         outputs = model(inputs)
----> 9         loss = criterion(outputs, targets)
     10         loss.backward()

3 frames
[/usr/local/lib/python3.10/dist-packages/torch/nn/functional.py](https://localhost:8080/#) in cross_entropy(input, target, weight, size_average, ignore_index, reduce, reduction, label_smoothing)
   3057     if size_average is not None or reduce is not None:
   3058         reduction = _Reduction.legacy_get_string(size_average, reduce)
-> 3059     return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)
   3060 
   3061 

RuntimeError: "nll_loss_forward_reduce_cuda_kernel_2d_index" not implemented for 'Float'""")

add(ID, "traceback", "en", RAN,
    traceback([
        ("/home/alice/proj/audio/train.py", 102, "train_step", "loss = F.cross_entropy(logits, batch[\"label\"])\n       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
        *at("alice311", captured_rows("ce_target_float")),
    ], exc_line("ce_target_float")))

add(ID, "prose-en", "en", RAN + "; Windows frames written by hand",
    "same script works on my linux box but on windows I get this. labels come from np.array(list_of_ints)\n"
    + fence(traceback([
        (r"C:\Users\Chen Wei\kaggle\digits\train.py", 49, "<module>", "loss = F.cross_entropy(out, torch.from_numpy(y_batch))"),
        *at("win2", captured_rows("ce_target_int")),
    ], exc_line("ce_target_int"))))

add(ID, "truncated", "en", known("1.0-1.5") + ", cut mid-word",
    "Expected object of scalar type Long but got scalar type Float for argument #2 'tar")

add(ID, "traceback", "en", known_cuda("1.10-2.x") + "; IPython 8 output with ANSI colour codes",
    "\x1b[0;31m---------------------------------------------------------------------------\x1b[0m\n"
    "\x1b[0;31mRuntimeError\x1b[0m                              Traceback (most recent call last)\n"
    "Cell \x1b[0;32mIn[18], line 6\x1b[0m\n"
    "\x1b[1;32m      4\x1b[0m y \x1b[38;5;241m=\x1b[39m torch\x1b[38;5;241m.\x1b[39mfrom_numpy(labels_int32)\x1b[38;5;241m.\x1b[39mcuda()\n"
    "\x1b[1;32m      5\x1b[0m out \x1b[38;5;241m=\x1b[39m net(x)\n"
    "\x1b[0;32m----> 6\x1b[0m loss \x1b[38;5;241m=\x1b[39m \x1b[43mloss_fn\x1b[49m\x1b[43m(\x1b[49m\x1b[43mout\x1b[49m\x1b[43m,\x1b[49m\x1b[43m \x1b[49m\x1b[43my\x1b[49m\x1b[43m)\x1b[49m\n\n"
    "\x1b[0;31mRuntimeError\x1b[0m: \"nll_loss_forward_reduce_cuda_kernel_2d_index\" not implemented for 'Int'")


# --- pytorch/ce-batch-size-mismatch --------------------------------------------------
ID = "pytorch/ce-batch-size-mismatch"

add(ID, "traceback", "en", RAN,
    traceback([
        ("/home/jiwoo/work/cifar/train.py", 73, "<module>", "loss = criterion(net(inputs), labels)\n       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
        *at("venv312", CALL["2.13"]),
        *at("venv312", CROSS_ENTROPY["2.13"]),
    ], exc_line("ce_batch_size")))

add(ID, "prose-ko", "ko", known("1.x"),
    "LSTM 감성분류인데 배치 32, 시퀀스 길이 16이에요. 마지막 타임스텝만 써야 하는 걸 놓친 것 같기도 하고요...\n"
    + fence(traceback([
        ("train.py", 88, "<module>", "loss = criterion(output, labels)"),
        *at("/home/hyunwoo/anaconda3/lib/python3.7/site-packages", CALL["1.4"]),
        *at("/home/hyunwoo/anaconda3/lib/python3.7/site-packages", CROSS_ENTROPY["1.4"][:2]),
        ("/home/hyunwoo/anaconda3/lib/python3.7/site-packages/torch/nn/functional.py", 1824, "nll_loss",
         ".format(input.size(0), target.size(0)))"),
    ], "ValueError: Expected input batch_size (512) to match target batch_size (32).")))

add(ID, "prose-zh", "zh", known("1.x-2.x"),
    "seq2seq 翻译模型，logits.view(-1, vocab_size) 和 labels.view(-1) 算 loss，报这个，decoder 输入和 labels 长度我是分别 pad 的：\n"
    "ValueError: Expected input batch_size (3072) to match target batch_size (3000).")

add(ID, "line", "en", known("1.x-2.x (unchanged)"), "ValueError: Expected input batch_size (1) to match target batch_size (8).")

add(ID, "truncated", "en", known("1.x-2.x") + ", cut mid-word", "ValueError: Expected input batch_size (2048) to match target bat")

add(ID, "traceback", "en", known("2.0"),
    traceback([
        (r"C:\Users\minji\Documents\emotion\main.py", 120, "<module>", "train(model, train_loader)"),
        (r"C:\Users\minji\Documents\emotion\main.py", 67, "train", "loss = criterion(preds, target)"),
        *at("win", CALL["2.0"]),
        *at("win", CROSS_ENTROPY["2.0"]),
    ], "ValueError: Expected input batch_size (64) to match target batch_size (16)."))

add(ID, "traceback", "en", known("2.x") + "; rich box layout",
    rich_box([
        ("/home/alice/proj/video/train.py", 133, "train_epoch", [
            (130, "    for clips, labels in loader:"),
            (131, "        b, t = clips.shape[:2]"),
            (132, "        logits = model(clips.flatten(0, 1))"),
            (133, "        loss = F.cross_entropy(logits, labels)"),
            (134, "        loss.backward()"),
        ]),
        (sp("conda310", "torch/nn/functional.py"), 3086, "cross_entropy", [
            (3084, "    if size_average is not None or reduce is not None:"),
            (3085, "        reduction = _Reduction.legacy_get_string(size_average, reduce)"),
            (3086, "    return torch._C._nn.cross_entropy_loss("),
            (3087, "        input,"),
        ]),
    ], "ValueError: Expected input batch_size (320) to match target batch_size (32)."))
