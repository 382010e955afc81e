"""Questions in Korean and Chinese, asked the way people ask in a team channel.

They name the symptom and the APIs involved (backward, DataLoader, num_workers,
state_dict...) but never quote the English error message; tests/test_eval_data.py
checks that none of them contains an error text from the taxonomy.
"""

from __future__ import annotations

from .sample import QUESTION, sample

# (expected id, Korean questions, Chinese questions)
QUESTIONS = [
    ("pytorch/backward-twice", [
        "loss.backward()를 두 번 부르면 에러가 나요. GAN에서 판별자 loss랑 생성자 loss를 따로 backward 하려는 건데 어떻게 해야 하나요?",
        "RNN 학습할 때 이전 배치의 hidden state를 그대로 다음 배치에 넘기면 두 번째 배치부터 역전파가 안 된다고 나와요. detach는 어디서 해야 하나요?",
    ], [
        "同一个计算图 backward 两次就报错，说中间结果已经被释放了。retain_graph 到底要不要设？设了会不会内存一直涨？",
        "训练循环里我把每个 batch 的 loss 直接加到 total_loss 上，第二个 batch 调 backward 就出错，这是为什么？",
    ]),
    ("pytorch/inplace-modified", [
        "nn.ReLU(inplace=True)로 바꿨더니 역전파할 때 어떤 변수가 제자리 연산으로 바뀌었다고 에러가 나요. 어떤 연산이 문제인지 찾는 방법이 있을까요?",
        "forward 안에서 x[:, 0] = 0 처럼 텐서 일부를 덮어쓰는데 backward에서 텐서 버전이 안 맞는다고 나와요. clone을 해야 하나요?",
    ], [
        "GAN 里先 optimizer_D.step() 再对生成器的 loss 做 backward，报错说梯度计算需要的变量被原地修改了，版本号对不上，顺序应该怎么改？",
        "forward 里用 += 做残差连接，反向传播时提示某个张量的 version 变了。原地操作到底什么时候会出问题？",
    ]),
    ("pytorch/leaf-inplace", [
        "경사하강법을 직접 구현할 때 w -= lr * w.grad 하면 에러가 나요. requires_grad=True인 텐서는 이렇게 업데이트하면 안 되나요?",
        "nn.Parameter로 만든 가중치의 첫 행을 0으로 초기화하려고 weight[0] = 0 했더니 리프 텐서라서 안 된대요. 초기화는 어떻게 해야 하죠?",
    ], [
        "手动更新参数 w.sub_(lr * w.grad) 报错，说需要梯度的叶子节点不能做原地操作，是不是要放到 torch.no_grad() 里面？",
        "做 FGSM 对抗样本，输入图片 x.requires_grad_() 之后再 x += eps * x.grad.sign() 就报错了，正确的写法是什么？",
    ]),
    ("pytorch/no-grad-fn", [
        "backbone을 전부 freeze하고 분류기만 학습하려는데 loss.backward() 하면 loss에 grad_fn이 없다고 나와요. 뭘 놓친 걸까요?",
        "loss를 .item()으로 숫자로 뽑은 다음 torch.tensor로 다시 감싸서 backward 했더니 기울기가 필요 없는 텐서라고 에러가 나요. 왜 그런 거죠?",
    ], [
        "验证函数里用了 torch.set_grad_enabled(False)，回到训练循环以后 backward 报错，说张量不需要梯度也没有 grad_fn，怎么排查？",
        "LoRA 微调开了 gradient_checkpointing 以后第一步就报错，说 loss 没有 grad_fn，关掉检查点就好了，这是什么原因？",
    ]),
    ("pytorch/grad-scalar", [
        "reduction='none'으로 샘플별 loss를 구한 다음 바로 backward 하니까 스칼라 출력에서만 기울기를 만들 수 있다고 나와요. mean을 먼저 해야 하나요?",
        "DataParallel로 GPU 4장을 쓰면 loss가 길이 4짜리 벡터로 나와서 backward가 안 돼요. 한 장일 때는 괜찮았어요.",
    ], [
        "torch.autograd.grad(y, x) 里 y 是一个向量，报错说只能对标量隐式创建梯度，grad_outputs 应该传什么？",
        "网络输出是 (N, 1) 的张量，我直接 output.backward()，提示需要标量输出。对向量输出求梯度应该怎么写？",
    ]),
    ("pytorch/numpy-requires-grad", [
        "모델 출력을 그래프로 그리려고 plt.plot(pred) 하니까 numpy로 바꿀 수 없다고 에러나요. detach를 꼭 해야 하나요?",
        "sklearn의 f1_score에 모델 예측 텐서를 그대로 넣었더니 requires_grad 때문에 안 된대요. .detach().cpu().numpy() 순서가 맞나요?",
    ], [
        "把模型输出转成 numpy 数组保存时报错，说这个张量需要梯度，不能直接转。detach() 和 .data 有什么区别？",
        "用 np.array() 把一个装着 tensor 的列表转成数组就报错，提示要先 detach，怎么批量处理比较好？",
    ]),
    ("pytorch/cuda-oom", [
        "배치 사이즈를 2까지 줄였는데도 GPU 메모리가 부족하다고 나와요. 3090 24GB인데 메모리를 더 아낄 방법이 있을까요?",
        "학습할 때는 괜찮은데 evaluate만 돌리면 GPU 메모리가 계속 늘어나다가 결국 할당에 실패해요. 검증 루프에서 뭘 잘못한 걸까요?",
    ], [
        "显存不够了怎么办，batch size 已经很小了，也开了混合精度，nvidia-smi 看还有别的进程占着一部分显存",
        "PyTorch 显存分配失败，提示保留但未分配的内存很多，让设置 PYTORCH_CUDA_ALLOC_CONF，expandable_segments 这个选项真的有用吗？",
    ]),
    ("pytorch/device-mismatch", [
        "model.to('cuda')는 했는데 입력 텐서가 CPU에 남아 있어서 텐서가 두 장치에 섞여 있다고 에러가 나요. 어디를 고쳐야 하나요?",
        "추론 코드에서 conv 입력은 GPU 텐서인데 가중치는 CPU 텐서라서 타입이 다르다고 나와요. load_state_dict 한 뒤에 .cuda()를 다시 해야 하나요?",
    ], [
        "模型放到了 GPU 上，但是 forward 里新建的 torch.zeros 在 CPU 上，报错说张量不在同一个设备。怎么写才能自动跟着模型的 device？",
        "LSTM 的 h0、c0 是我在外面用 torch.zeros 建的，传进模型就报输入和隐藏状态不在同一个设备上，该怎么改？",
    ]),
    ("pytorch/dtype-mismatch", [
        "numpy 배열을 torch.from_numpy로 바꿔서 nn.Linear에 넣었더니 double이랑 float 타입이 다르다고 에러가 나요.",
        "입력만 float64이고 모델은 float32일 때 어떻게 맞추는 게 좋나요? 매번 .float()을 붙이는 게 맞는 방법인가요?",
    ], [
        "pandas 读出来的数据转成 tensor 以后喂给网络，报错说期望 Float 实际是 Double，dtype 应该在哪一步统一？",
        "autocast 混合精度下，自己写的 attention 里 mask 是 float32，和 half 的张量一起做 baddbmm 报类型不一致，怎么处理？",
    ]),
    ("pytorch/shape-matmul", [
        "CNN에서 flatten 한 다음 nn.Linear로 들어갈 때 행렬 곱 크기가 안 맞는다고 나와요. in_features는 어떻게 계산하나요?",
        "입력 이미지 크기를 224에서 256으로 바꿨더니 classifier 첫 번째 Linear에서 두 행렬을 곱할 수 없대요.",
    ], [
        "全连接层报两个矩阵的形状没法相乘，括号里给了两个形状，怎么根据它推出 in_features 应该填多少？",
        "用 torch.mm 手写 attention 的时候 q 和 k 形状一样，提示不能相乘，是不是忘了转置？",
    ]),
    ("pytorch/view-stride", [
        "transpose 한 텐서에 .view()를 쓰면 크기와 stride가 호환되지 않는다고 나와요. contiguous()를 꼭 불러야 하나요?",
        "permute 다음에 view로 펴면 에러가 나는데 reshape로 바꾸면 돌아가요. 둘이 정확히 뭐가 다른 건가요?",
    ], [
        "permute 之后调用 view 报错，说 view 的尺寸和张量的 stride 不兼容，是不是内存不连续的问题？",
        "nanoGPT 里 attention 的输出 transpose(1, 2) 之后为什么要先 contiguous() 再 view？去掉就报错",
    ]),
    ("pytorch/index-out-of-range", [
        "토크나이저에 스페셜 토큰을 추가하고 나서 BERT 임베딩에서 인덱스가 범위를 벗어났다고 나와요. resize_token_embeddings를 해야 하나요?",
        "max_length를 1024로 늘렸더니 position embedding에서 인덱스 에러가 나요. 512 토큰 넘는 문서는 어떻게 처리하나요?",
    ], [
        "nn.Embedding 报索引越界，num_embeddings 设的是词表大小，padding 用的 id 是不是也要算进去？",
        "推荐模型里用户 ID 没有重新编码，直接送进 Embedding 就报下标超出范围，ID 映射应该怎么做？",
    ]),
    ("pytorch/device-side-assert", [
        "GPU에서 학습하면 CUDA 에러로 디바이스 쪽 assert가 걸렸다고만 나오고 어디서 났는지 모르겠어요. 라벨 범위 문제일 수도 있나요?",
        "CUDA_LAUNCH_BLOCKING=1을 켜라고 나오는데 켜면 정확히 뭐가 달라지나요? 에러 나는 줄이 매번 달라요.",
    ], [
        "标签从 1 开始编号，类别数设的是 10，GPU 上训练直接断言失败，CPU 上报的是另一个错误，这两个是一回事吗？",
        "CUDA 报设备端断言触发之后，后面所有 cuda 操作都跟着报错，只能重启 notebook 吗？",
    ]),
    ("pytorch/cuda-illegal-memory-access", [
        "커스텀 CUDA 커널을 쓰는데 가끔 불법 메모리 접근 에러로 프로세스가 통째로 죽어요. 디버깅은 어디서부터 시작해야 하나요?",
        "flash attention을 쓰면 가변 길이 배치에서만 CUDA 메모리 접근 오류가 나요. cu_seqlens를 잘못 넣은 걸까요?",
    ], [
        "训练跑几个小时以后随机报 CUDA 非法内存访问，每次出错的位置都不一样，怎么定位是哪个算子？",
        "torch.compile 之后报 Triton 的非法内存访问错误，eager 模式就正常，这是编译器的 bug 吗？",
    ]),
    ("pytorch/cudnn-status", [
        "새 GPU 서버에서 예전 conda 환경을 그대로 쓰니까 첫 conv에서 cuDNN 초기화가 안 됐다는 에러가 나요. 버전 문제인가요?",
        "torch.backends.cudnn.benchmark = True로 했더니 cuDNN 실행 실패 에러가 나요. 끄면 괜찮은데 왜 그런 걸까요?",
    ], [
        "训练到一半报 cuDNN 内部错误，还打印了一大段复现代码和 ConvolutionParams，这是显存不够还是驱动的问题？",
        "cuDNN 报不支持，还说可能是输入不连续，我在 conv 前面做了 transpose，需要加 .contiguous() 吗？",
    ]),
    ("pytorch/cuda-not-available", [
        "pip로 torch를 설치했는데 .cuda() 하면 CUDA 지원 없이 빌드됐다고 나와요. 윈도우에서 GPU 버전은 어떻게 설치하나요?",
        "도커 컨테이너 안에서 torch.cuda.is_available()이 False예요. 호스트에서는 nvidia-smi가 잘 되는데 뭘 빠뜨렸을까요?",
    ], [
        "在服务器上训练保存的模型，拿到我的 Mac 上 torch.load 就报错说 CUDA 不可用，map_location 要怎么写？",
        "Colab 上运行 model.to('cuda') 说没有可用的 GPU，是不是运行时类型没选对？",
    ]),
    ("pytorch/dataloader-worker", [
        "num_workers를 8로 주면 학습 중간에 DataLoader 워커 프로세스가 시그널을 받고 죽어요. 0으로 하면 괜찮은데 너무 느려요.",
        "도커에서 돌리면 공유 메모리가 부족할 수 있다는 메시지가 같이 나와요. --shm-size는 얼마나 줘야 하나요?",
    ], [
        "Windows 上 DataLoader 的 num_workers 设成大于 0 就会有 worker 进程意外退出，是不是要加 if __name__ == '__main__'？",
        "数据增强里用了 cv2，多进程加载数据时 worker 偶尔段错误挂掉，怎么查是哪张图片出的问题？",
    ]),
    ("pytorch/nccl-distributed", [
        "멀티 노드 DDP 학습에서 NCCL 통신이 30분 동안 멈춰 있다가 타임아웃으로 죽어요. rank 0에서만 검증을 돌리는 게 문제일까요?",
        "두 노드에서 torchrun으로 띄우면 process group 초기화할 때 NCCL 쪽 시스템 오류가 나요. 네트워크 인터페이스를 따로 지정해야 하나요?",
    ], [
        "多机多卡训练时 allreduce 卡住，过了超时时间进程就被杀掉了，NCCL_DEBUG=INFO 应该重点看哪些日志？",
        "同一台机器上两个进程用了同一张卡，NCCL 报用法错误，说检测到重复的 GPU，local_rank 应该怎么设置？",
    ]),
    ("pytorch/ddp-unused-parameters", [
        "DDP로 멀티태스크 모델을 학습하는데 배치마다 일부 head만 쓰니까 이전 iteration의 reduction이 안 끝났다는 에러가 나요.",
        "DDP에서 find_unused_parameters 옵션을 켜면 해결된다는데 속도가 느려진다고 해서요. 다른 방법은 없나요?",
    ], [
        "DDP 训练时有些参数没参与 loss 计算，第二步就报错。TORCH_DISTRIBUTED_DEBUG 设成 DETAIL 能看到是哪些参数吗？",
        "冻结了 backbone 的一部分层再用 DistributedDataParallel 包起来，第二个 iteration 报错说有参数没有收到梯度，怎么办？",
    ]),
    ("pytorch/state-dict-mismatch", [
        "모델 불러올 때 키가 안 맞는다고 나와요. DDP로 학습해서 저장했더니 키 앞에 module.이 붙어 있는 것 같아요.",
        "ImageNet 사전학습 가중치를 클래스 10개짜리 모델에 load_state_dict 하니까 fc 레이어 크기가 다르다고 나와요. 마지막 층만 빼고 불러오는 방법이 있나요?",
    ], [
        "加载预训练权重时报了很多缺失的 key 和多余的 key，strict=False 能解决吗？会不会有些层其实没加载上？",
        "改了分类头的类别数以后 load_state_dict 报参数形状不匹配，怎么只加载 backbone 的参数？",
    ]),
    ("pytorch/weights-only-unpickling", [
        "torch를 2.6으로 올렸더니 예전 체크포인트가 torch.load에서 weights_only 때문에 안 열려요. 안전하게 여는 방법이 뭔가요?",
        "체크포인트에 argparse Namespace를 같이 저장했는데 새 버전에서 불러오면 허용되지 않은 global이라고 나와요. add_safe_globals를 쓰면 되나요?",
    ], [
        "升级 PyTorch 之后 YOLO 的 best.pt 加载失败，提示只允许加载权重，把 weights_only 设成 False 就行吗？有没有安全风险？",
        "Lightning 的 load_from_checkpoint 在新版 torch 上报反序列化错误，checkpoint 里存了 omegaconf 的配置对象，该怎么处理？",
    ]),
    ("pytorch/half-not-implemented", [
        "GPU 없는 노트북에서 fp16 모델을 돌리니까 Half 타입은 구현이 안 돼 있다고 나와요. CPU에서는 float16을 못 쓰나요?",
        "스테이블 디퓨전을 CPU로 돌릴 때 LayerNorm에서 에러가 나요. torch_dtype=torch.float16을 빼야 하나요?",
    ], [
        "没有显卡，用 CPU 跑 .half() 过的模型，报 addmm 不支持半精度，是不是只能转回 float32？",
        "大模型用 torch_dtype=torch.float16 加载到 CPU 上推理直接报错，换成 bfloat16 可以吗？",
    ]),
    ("pytorch/cross-entropy-target", [
        "라벨을 원-핫 인코딩해서 CrossEntropyLoss에 넣었더니 타깃이 1차원이어야 한다고 나와요. 원-핫을 풀어야 하나요?",
        "세그멘테이션 마스크를 RGB 이미지로 읽어서 loss에 넣으니까 타깃 크기가 기대한 것과 다르대요. 마스크 모양은 어떻게 만들어야 하나요?",
    ], [
        "序列标注任务 logits 是 (batch, seq_len, num_tags)，直接传给 F.cross_entropy 报目标尺寸不对，维度要怎么排？",
        "多标签分类用 CrossEntropyLoss 报不支持多个目标，是不是应该换成 BCEWithLogitsLoss？",
    ]),
    ("pytorch/ce-target-dtype", [
        "CrossEntropyLoss에 float 라벨을 넣으니까 Long 타입이 필요하다고 나와요. .long()으로 바꾸면 되나요?",
        "윈도우에서만 라벨이 int32로 만들어져서 loss에서 타입 에러가 나요. 리눅스에서는 같은 코드가 잘 돌아가요.",
    ], [
        "标签是从 csv 读出来的浮点数，GPU 上算交叉熵报 nll_loss 的 kernel 不支持 Float，是标签类型的问题吗？",
        "交叉熵损失的 target 应该是什么 dtype？我是用 torch.tensor(labels) 生成的，有时是 float 有时是 int",
    ]),
    ("pytorch/ce-batch-size-mismatch", [
        "CrossEntropyLoss에서 입력 배치 크기와 타깃 배치 크기가 다르다고 나와요. view(-1, ...) 할 때 숫자를 잘못 넣은 것 같아요.",
        "LSTM 출력의 모든 타임스텝을 그대로 loss에 넣었더니 배치 크기가 안 맞는대요. 마지막 스텝만 써야 하나요?",
    ], [
        "seq2seq 里 logits.view(-1, vocab_size) 和 labels.view(-1) 长度不一样，交叉熵报 batch 大小不匹配，是 padding 的问题吗？",
        "CNN 里 x.view(-1, 16*5*5) 之后算 loss，提示输入和标签的 batch_size 不一致，可是我的 batch 明明是 64",
    ]),
]

ITEMS: list[dict] = []
for expected, korean, chinese in QUESTIONS:
    for text in korean:
        ITEMS.append(sample(expected, "question-ko", "ko", QUESTION, text))
    for text in chinese:
        ITEMS.append(sample(expected, "question-zh", "zh", QUESTION, text))
