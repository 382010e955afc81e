"""Pasted errors from the training infrastructure: DataLoader workers, NCCL and DDP,
checkpoints (state_dict keys and shapes, torch.load with weights_only)."""

from __future__ import annotations

from .render import (CALL, LOAD_STATE_DICT, TORCH_LOAD, at, captured, chained, exc_line, fence, log, prefixed,
                     slack_escape, sp, traceback)
from .sample import RAN, RAN_LOG, known, known_cuda, sample

ITEMS: list[dict] = []


def add(*args) -> None:
    ITEMS.append(sample(*args))


# --- pytorch/dataloader-worker -------------------------------------------------------
ID = "pytorch/dataloader-worker"

add(ID, "traceback", "en", RAN_LOG,
    log("dataloader_sigkill", "alice311", "/home/alice/proj/asr/train.py", python="/home/alice/miniconda3/envs/dl"))

add(ID, "prose-ko", "ko", RAN_LOG + "; as Slack delivers it (&lt; &gt; escaped)",
    "도커 컨테이너 안에서 num_workers=8로 돌리면 몇 분 지나서 이렇게 죽어요. num_workers=0이면 괜찮은데 너무 느려요.\n"
    + slack_escape(fence(log("dataloader_sigbus", "/opt/conda/lib/python3.11/site-packages", "/workspace/train.py"))))

add(ID, "line", "en", known("1.x-2.x"), "RuntimeError: DataLoader worker (pid 2577) is killed by signal: Killed.")

add(ID, "prose-zh", "zh", known("1.13"),
    "Windows 上 num_workers 设成 2 以上，跑几十个 batch 就报这个，设成 0 就没事：\n"
    + traceback([
        (r"C:\Users\Chen Wei\seg\train.py", 142, "<module>", "for step, (img, mask) in enumerate(train_loader):"),
        (sp("win2", "torch/utils/data/dataloader.py"), 628, "__next__", "data = self._next_data()"),
        (sp("win2", "torch/utils/data/dataloader.py"), 1316, "_next_data", "idx, data = self._get_data()"),
        (sp("win2", "torch/utils/data/dataloader.py"), 1282, "_get_data", "success, data = self._try_get_data()"),
        (sp("win2", "torch/utils/data/dataloader.py"), 1133, "_try_get_data",
         "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e"),
    ], "RuntimeError: DataLoader worker (pid(s) 41324, 41325) exited unexpectedly"))

add(ID, "prose-en", "en", known("1.x-2.x"),
    "augmentations use cv2 inside __getitem__. random crashes after a few hundred steps, num_workers=6:\n"
    "RuntimeError: DataLoader worker (pid 9138) is killed by signal: Segmentation fault.")

add(ID, "truncated", "en", known("1.x-2.x") + ", cut mid-word",
    "RuntimeError: DataLoader worker (pid 28817) is killed by signal: Ki")

add(ID, "traceback", "en", known("2.1") + "; Colab layout, warning text as printed",
    """/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py:557: UserWarning: This DataLoader will create 8 worker processes in total. Our suggested max number of worker in current system is 2, which is smaller than what this DataLoader is going to create. Please be aware that excessive worker creation might get DataLoader running slow or even freeze, lower the worker number to avoid potential slowness/freeze if necessary.
  warnings.warn(_create_warning_msg(
---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
[<ipython-input-9-12ab3f4c5d6e>](https://localhost:8080/#) in <cell line: 0>()
----> 1 for epoch in range(EPOCHS):
      2     for images, labels in train_loader:
      3         images, labels = images.to(device), labels.to(device)

4 frames
[/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py](https://localhost:8080/#) in _try_get_data(self, timeout)
   1144             if len(failed_workers) > 0:
   1145                 pids_str = ', '.join(str(w.pid) for w in failed_workers)
-> 1146                 raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e
   1147             if isinstance(e, queue.Empty):
   1148                 return (False, None)

RuntimeError: DataLoader worker (pid(s) 1245) exited unexpectedly""")

add(ID, "traceback", "en", known("1.4-1.6") + "; chained traceback as those versions printed it",
    chained(
        traceback([
            ("/opt/conda/lib/python3.8/site-packages/torch/utils/data/dataloader.py", 761, "_try_get_data",
             "data = self._data_queue.get(timeout=timeout)"),
            ("/opt/conda/lib/python3.8/multiprocessing/queues.py", 107, "get", "if not self._poll(timeout):"),
            ("/opt/conda/lib/python3.8/multiprocessing/connection.py", 257, "poll", "return self._poll(timeout)"),
            ("/opt/conda/lib/python3.8/multiprocessing/connection.py", 424, "_poll", "r = wait([self], timeout)"),
            ("/opt/conda/lib/python3.8/multiprocessing/connection.py", 931, "wait", "ready = selector.select(timeout)"),
            ("/opt/conda/lib/python3.8/selectors.py", 415, "select", "fd_event_list = self._selector.poll(timeout)"),
            ("/opt/conda/lib/python3.8/site-packages/torch/utils/data/_utils/signal_handling.py", 66, "handler",
             "_error_if_any_worker_fails()"),
        ], "RuntimeError: DataLoader worker (pid 1720) is killed by signal: Killed. "),
        traceback([
            ("train.py", 204, "<module>", "for i, (img, target) in enumerate(train_loader):"),
            ("/opt/conda/lib/python3.8/site-packages/torch/utils/data/dataloader.py", 345, "__next__", "data = self._next_data()"),
            ("/opt/conda/lib/python3.8/site-packages/torch/utils/data/dataloader.py", 841, "_next_data", "idx, data = self._get_data()"),
            ("/opt/conda/lib/python3.8/site-packages/torch/utils/data/dataloader.py", 808, "_get_data", "success, data = self._try_get_data()"),
            ("/opt/conda/lib/python3.8/site-packages/torch/utils/data/dataloader.py", 774, "_try_get_data",
             "raise RuntimeError('DataLoader worker (pid(s) {}) exited unexpectedly'.format(pids_str))"),
        ], "RuntimeError: DataLoader worker (pid(s) 1720) exited unexpectedly")))


# --- pytorch/nccl-distributed --------------------------------------------------------
ID = "pytorch/nccl-distributed"

add(ID, "prose-ko", "ko", known_cuda("1.10-1.13"),
    "8 GPU로 학습하는데 밤새 돌리다 보면 꼭 30분쯤 멈춰 있다가 이렇게 죽어요. 검증 루프는 rank 0에서만 돌리고 있어요.\n```\n"
    "[E ProcessGroupNCCL.cpp:828] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=77415, "
    "OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800627 milliseconds before timing out.\n"
    "[E ProcessGroupNCCL.cpp:455] Some NCCL operations have failed or timed out. Due to the asynchronous nature of "
    "CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.\n"
    "[E ProcessGroupNCCL.cpp:460] To avoid data inconsistency, we are taking the entire process down.\n"
    "terminate called after throwing an instance of 'std::runtime_error'\n"
    "  what():  [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=77415, OpType=ALLREDUCE, "
    "Timeout(ms)=1800000) ran for 1800627 milliseconds before timing out.\n```")

add(ID, "prose-zh", "zh", known_cuda("2.2-2.4") + "; torchrun summary laid out as torch 2.13 prints it",
    "多机多卡（2 机 16 卡）训练，第一次 broadcast 就卡住，10 分钟后报超时退出，单机 8 卡是好的：\n"
    "[rank3]:[E ProcessGroupNCCL.cpp:563] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, "
    "OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600054 milliseconds before timing out.\n"
    "[rank3]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 3] Timeout at NCCL work: 1, last enqueued NCCL work: 1, last "
    "completed NCCL work: -1.\n"
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
    "============================================================\n"
    "train.py FAILED\n"
    "------------------------------------------------------------\n"
    "Root Cause (first observed failure):\n"
    "[0]:\n"
    "  time      : 2024-06-18_03:12:40\n"
    "  host      : gpu-node-02\n"
    "  rank      : 11 (local_rank: 3)\n"
    "  exitcode  : -6 (pid: 2713)\n"
    "  error_file: <N/A>\n"
    "  traceback : Signal 6 (SIGABRT) received by PID 2713\n"
    "============================================================")

add(ID, "prose-en", "en", known_cuda("2.1-2.3"),
    "two nodes, the job dies while wrapping the model in DDP. same container on both, NCCL_SOCKET_IFNAME not set\n"
    + fence(traceback([
        ("/home/alice/proj/pretrain/main.py", 77, "<module>", "model = DDP(model, device_ids=[local_rank])"),
        (sp("conda310", "torch/nn/parallel/distributed.py"), 795, "__init__", "_verify_param_shape_across_processes(self.process_group, parameters)"),
        (sp("conda310", "torch/distributed/utils.py"), 265, "_verify_param_shape_across_processes",
         "return dist._verify_params_across_processes(process_group, tensors, logger)"),
    ], "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:219, "
       "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1\n"
       "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \n"
       "Last error:\nsocketStartConnect: Connect to 192.168.1.12<38953> failed : Software caused connection abort")))

add(ID, "line", "en", known_cuda("1.10"),
    "RuntimeError: NCCL error in: /opt/conda/conda-bld/pytorch_1639180594101/work/torch/csrc/distributed/c10d/"
    "ProcessGroupNCCL.cpp:1169, unhandled cuda error, NCCL version 21.0.3")

add(ID, "prose-ko", "ko", known_cuda("2.1"),
    "한 노드에서 프로세스 2개 띄웠는데 바로 에러나요. CUDA_VISIBLE_DEVICES는 0,1로 줬습니다.\n"
    + fence(prefixed(traceback([
        ("/home/minsu/ddp/train.py", 42, "<module>", "dist.barrier()"),
        (sp("/home/minsu/.venv/lib/python3.10/site-packages", "torch/distributed/c10d_logger.py"), 47, "wrapper",
         "return func(*args, **kwargs)"),
        (sp("/home/minsu/.venv/lib/python3.10/site-packages", "torch/distributed/distributed_c10d.py"), 3696, "barrier",
         "work = default_pg.barrier(opts=opts)"),
    ], "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:219, invalid "
       "usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.18.1\n"
       "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n"
       "Last error:\nDuplicate GPU detected : rank 1 and rank 0 both on CUDA device 1a000"), "[rank1]: ")))

add(ID, "truncated", "en", known_cuda("2.0-2.3") + ", cut mid-word",
    "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1275, unhandled system error (run with NCCL_DEB")

add(ID, "prose-en", "en", known_cuda("2.0") + "; NCCL_DEBUG=INFO lines, as Slack delivers it (mention, &lt; &gt; escaped)",
    "<@U02TROUBLE> " + slack_escape("multi-node run on the new cluster, rank 0 is on node1. any idea?\n```\n"
    "node1:2345:2400 [0] NCCL INFO Bootstrap : Using eth0:10.1.0.2<0>\n"
    "node1:2345:2400 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation\n"
    "node1:2345:2400 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.1.0.3<41229> failed : Connection refused\n"
    "node1:2345:2400 [0] NCCL INFO bootstrap.cc:86 -> 6\n"
    "node1:2345:2400 [0] NCCL INFO init.cc:1234 -> 6\n"
    "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1275, unhandled system error, "
    "NCCL version 2.14.3\n"
    "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \n"
    "Last error:\nsocketStartConnect: Connect to 10.1.0.3<41229> failed : Connection refused\n```"))

add(ID, "line", "en", known_cuda("2.4+"),
    "[rank0]:[E1023 10:14:05.482017613 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=4021, OpType=ALLREDUCE, NumelIn=25557032, NumelOut=25557032, Timeout(ms)=1800000) "
    "ran for 1800089 milliseconds before timing out.")


# --- pytorch/ddp-unused-parameters ---------------------------------------------------
ID = "pytorch/ddp-unused-parameters"
DDP_OLD = ("RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. "
           "This error indicates that your module has parameters that were not used in producing loss. You can "
           "enable unused parameter detection by (1) passing the keyword argument `find_unused_parameters=True` to "
           "`torch.nn.parallel.DistributedDataParallel`; (2) making sure all `forward` function outputs participate "
           "in calculating loss. If you already have done the above two steps, then the distributed data parallel "
           "module wasn't able to locate the output tensors in the return value of your module's `forward` "
           "function. Please include the loss function and the structure of the return value of `forward` of your "
           "module when reporting this issue (e.g. list, dict, iterable).")
DDP_NEW_HEAD = ("RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. "
                "This error indicates that your module has parameters that were not used in producing loss. You can "
                "enable unused parameter detection by passing the keyword argument `find_unused_parameters=True` to "
                "`torch.nn.parallel.DistributedDataParallel`, and by \n"
                "making sure all `forward` function outputs participate in calculating loss. \n"
                "If you already have done the above, then the distributed data parallel module wasn't able to locate "
                "the output tensors in the return value of your module's `forward` function. Please include the loss "
                "function and the structure of the return value of `forward` of your module when reporting this "
                "issue (e.g. list, dict, iterable).\n")
DDP_DEBUG_HINT = (" In addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or "
                  "DETAIL to print out information about which particular parameters did not receive gradient on "
                  "this rank as part of this error")

add(ID, "traceback", "en", RAN_LOG + " (torchrun, gloo, 2 CPU processes)",
    log("ddp_unused_torchrun", "conda310", "/home/alice/proj/mtl/train_ddp.py", python="/opt/conda"))

add(ID, "prose-ko", "ko", known("1.5-1.7"),
    "멀티태스크 모델인데 배치마다 태스크 하나만 골라서 loss를 계산해요. 두 번째 iteration에서 죽습니다.\n"
    + fence(DDP_OLD + " (prepare_for_backward at /pytorch/torch/csrc/distributed/c10d/reducer.cpp:514)"))

add(ID, "prose-zh", "zh", known("1.10-2.x"),
    "DDP 训练 DETR，backbone 冻结了一部分层，第二个 iteration 报错：\n"
    + DDP_NEW_HEAD + "Parameter indices which did not receive grad for rank 0: 196 197 198 199\n" + DDP_DEBUG_HINT)

add(ID, "prose-en", "en", known("1.10-2.x") + " (TORCH_DISTRIBUTED_DEBUG=DETAIL)",
    "set TORCH_DISTRIBUTED_DEBUG=DETAIL like it says, now it names the params. it's the pooler, we only use the "
    "token outputs:\n```\n...the structure of the return value of `forward` of your module when reporting this issue "
    "(e.g. list, dict, iterable).\nParameters which did not receive grad for rank 1: module.bert.pooler.dense.bias, "
    "module.bert.pooler.dense.weight\nParameter indices which did not receive grad for rank 1: 197 198\n```")

add(ID, "line", "en", known("1.5-2.x"),
    "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. This "
    "error indicates that your module has parameters that were not used in producing loss.")

add(ID, "truncated", "en", known("1.10-2.x") + ", cut mid-word",
    "not used in producing loss. You can enable unused parameter detection by passing the keyword argument "
    "`find_unused_parameters=True` to `torch.nn.parallel.Distr")

add(ID, "traceback", "en", known("2.3") + "; transformers frames and rank prefix written by hand",
    prefixed(traceback([
        ("/home/alice/proj/rlhf/train_rm.py", 140, "<module>", "trainer.train()"),
        (sp("conda310", "transformers/trainer.py"), 1885, "train", "return inner_training_loop("),
        (sp("conda310", "transformers/trainer.py"), 2216, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs)"),
        (sp("conda310", "transformers/trainer.py"), 3238, "training_step", "loss = self.compute_loss(model, inputs)"),
        ("/home/alice/proj/rlhf/train_rm.py", 88, "compute_loss", "rewards_chosen = model(input_ids=inputs[\"input_ids_chosen\"])[0]"),
        *at("conda310", CALL["2.3"]),
        (sp("conda310", "torch/nn/parallel/distributed.py"), 1589, "forward", "inputs, kwargs = self._pre_forward(*inputs, **kwargs)"),
        (sp("conda310", "torch/nn/parallel/distributed.py"), 1480, "_pre_forward",
         "if torch.is_grad_enabled() and self.reducer._rebuild_buckets():"),
    ], DDP_NEW_HEAD + "Parameter indices which did not receive grad for rank 1: 390 391\n" + DDP_DEBUG_HINT), "[rank1]: "))


# --- pytorch/state-dict-mismatch -----------------------------------------------------
ID = "pytorch/state-dict-mismatch"

add(ID, "traceback", "en", known("1.x-2.x") + "; frames written for 2.3",
    traceback([
        ("/home/alice/proj/flowers/finetune.py", 39, "<module>", "model.load_state_dict(torch.load(\"resnet50_imagenet.pth\"))"),
        *at("conda310", LOAD_STATE_DICT["2.3"]),
    ], "RuntimeError: Error(s) in loading state_dict for ResNet:\n"
       "\tsize mismatch for fc.weight: copying a param with shape torch.Size([1000, 2048]) from checkpoint, the "
       "shape in current model is torch.Size([102, 2048]).\n"
       "\tsize mismatch for fc.bias: copying a param with shape torch.Size([1000]) from checkpoint, the shape in "
       "current model is torch.Size([102]).") )

add(ID, "prose-ko", "ko", "torch 2.13 wording (eval/capture_messages.py) with a longer key list",
    "DDP로 학습해서 저장한 체크포인트를 GPU 한 장짜리 추론 서버에서 불러오려고 하니까 이래요.\n"
    + fence("RuntimeError: Error(s) in loading state_dict for UNet:\n"
            "\tMissing key(s) in state_dict: \"inc.double_conv.0.weight\", \"inc.double_conv.1.weight\", "
            "\"inc.double_conv.1.bias\", \"inc.double_conv.1.running_mean\", \"inc.double_conv.1.running_var\", "
            "\"down1.maxpool_conv.1.double_conv.0.weight\", \"outc.conv.weight\", \"outc.conv.bias\". \n"
            "\tUnexpected key(s) in state_dict: \"module.inc.double_conv.0.weight\", \"module.inc.double_conv.1.weight\", "
            "\"module.inc.double_conv.1.bias\", \"module.inc.double_conv.1.running_mean\", "
            "\"module.inc.double_conv.1.running_var\", \"module.inc.double_conv.1.num_batches_tracked\", "
            "\"module.down1.maxpool_conv.1.double_conv.0.weight\", \"module.outc.conv.weight\", \"module.outc.conv.bias\". "))

add(ID, "prose-zh", "zh", known("1.x-2.x") + "; Jupyter layout",
    "用 timm 训练的 efficientnet 权重，想用 torchvision 的 efficientnet_b0 加载，报了一大堆 key 不匹配：\n"
    """---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
Cell In[6], line 3
      1 net = torchvision.models.efficientnet_b0(num_classes=4)
      2 sd = torch.load("effb0_timm_best.pth", map_location="cpu")
----> 3 net.load_state_dict(sd)

File ~/anaconda3/envs/cv/lib/python3.10/site-packages/torch/nn/modules/module.py:2153, in Module.load_state_dict(self, state_dict, strict, assign)
   2148         error_msgs.insert(
   2149             0, 'Missing key(s) in state_dict: {}. '.format(
   2150                 ', '.join(f'"{k}"' for k in missing_keys)))
   2152 if len(error_msgs) > 0:
-> 2153     raise RuntimeError('Error(s) in loading state_dict for {}:\\n\\t{}'.format(
   2154                        self.__class__.__name__, "\\n\\t".join(error_msgs)))
   2155 return _IncompatibleKeys(missing_keys, unexpected_keys)

RuntimeError: Error(s) in loading state_dict for EfficientNet:
	Missing key(s) in state_dict: "features.0.0.weight", "features.0.1.weight", "features.0.1.bias", "features.0.1.running_mean", "features.0.1.running_var", "features.1.0.block.0.0.weight", "classifier.1.weight", "classifier.1.bias". 
	Unexpected key(s) in state_dict: "conv_stem.weight", "bn1.weight", "bn1.bias", "bn1.running_mean", "bn1.running_var", "bn1.num_batches_tracked", "blocks.0.0.conv_dw.weight", "conv_head.weight", "classifier.weight", "classifier.bias". """)

add(ID, "truncated", "en", known("1.x-2.x") + "; only the middle of the message",
    "\tsize mismatch for model.embed_tokens.weight: copying a param with shape torch.Size([32000, 4096]) from "
    "checkpoint, the shape in current model is torch.Size([32002, 4096]).\n"
    "\tsize mismatch for lm_head.weight: copying a param with shape torch.Size([32000, 4096]) from checkpoint, the "
    "shape in current model is torch.Size([32002, 4096]).")

add(ID, "line", "en", known("0.4"),
    "RuntimeError: Error(s) in loading state_dict for ResNet:\n\tWhile copying the parameter named \"fc.weight\", "
    "whose dimensions in the model are torch.Size([10, 512]) and whose dimensions in the checkpoint are "
    "torch.Size([1000, 512]).")

add(ID, "traceback", "en", known("1.10"),
    traceback([
        (r"C:\Users\minji\Desktop\mask-det\eval.py", 33, "<module>", "model.load_state_dict(ckpt)"),
        *at("win", LOAD_STATE_DICT["1.10"]),
    ], "RuntimeError: Error(s) in loading state_dict for DataParallel:\n"
       "\tMissing key(s) in state_dict: \"module.backbone.conv1.weight\", \"module.backbone.bn1.weight\", "
       "\"module.backbone.bn1.bias\", \"module.backbone.bn1.running_mean\", \"module.backbone.bn1.running_var\", "
       "\"module.head.cls.weight\", \"module.head.cls.bias\". \n"
       "\tUnexpected key(s) in state_dict: \"backbone.conv1.weight\", \"backbone.bn1.weight\", \"backbone.bn1.bias\", "
       "\"backbone.bn1.running_mean\", \"backbone.bn1.running_var\", \"backbone.bn1.num_batches_tracked\", "
       "\"head.cls.weight\", \"head.cls.bias\". "))

add(ID, "traceback", "en", known("2.1") + "; chained: a KeyError first, the real error second",
    chained(
        traceback([("/home/alice/proj/ocr/predict.py", 24, "load", "model.load_state_dict(ckpt[\"state_dict\"])")],
                  "KeyError: 'state_dict'"),
        traceback([
            ("/home/alice/proj/ocr/predict.py", 61, "<module>", "model = load(args.ckpt)"),
            ("/home/alice/proj/ocr/predict.py", 26, "load", "model.load_state_dict(ckpt)"),
            *at("conda310", LOAD_STATE_DICT["2.0"]),
        ], "RuntimeError: Error(s) in loading state_dict for CRNN:\n"
           "\tMissing key(s) in state_dict: \"cnn.0.weight\", \"cnn.0.bias\", \"rnn.0.rnn.weight_ih_l0\", "
           "\"rnn.0.rnn.weight_hh_l0\", \"fc.weight\", \"fc.bias\". \n"
           "\tUnexpected key(s) in state_dict: \"epoch\", \"model\", \"optimizer\", \"scheduler\", \"best_acc\". ")))

add(ID, "prose-en", "en", known("1.x-2.x") + "; as Slack delivers it (&lt; &gt; escaped)",
    "<@U02TROUBLE> " + slack_escape("resized the embeddings after adding <|im_start|> and <|im_end|> to the "
                                    "tokenizer, now the LoRA merge script won't load the base. vocab 32000 -> 32002 "
                                    "& lm_head tied:\n")
    + fence("RuntimeError: Error(s) in loading state_dict for LlamaForCausalLM:\n"
            "\tsize mismatch for model.embed_tokens.weight: copying a param with shape torch.Size([32002, 4096]) "
            "from checkpoint, the shape in current model is torch.Size([32000, 4096]).\n"
            "\tsize mismatch for lm_head.weight: copying a param with shape torch.Size([32002, 4096]) from "
            "checkpoint, the shape in current model is torch.Size([32000, 4096])."))


# --- pytorch/weights-only-unpickling -------------------------------------------------
ID = "pytorch/weights-only-unpickling"


def wo_message(global_name: str, suggested: str | None = None, bold: bool = True) -> str:
    """The 2.6+ text, as torch 2.13 prints it for another global (captured layout)."""
    suggested = suggested or global_name
    text = captured("weights_only_namespace")["message"].replace("argparse.Namespace", "\x00")
    text = text.replace("add_safe_globals([\x00])", f"add_safe_globals([{suggested}])")
    text = text.replace("safe_globals([\x00])", f"safe_globals([{suggested}])")
    text = text.replace("\x00", global_name)
    if not bold:
        text = text.replace("\x1b[1m", "").replace("\x1b[0m", "")
    return text


add(ID, "traceback", "en", RAN + " (bold ANSI codes kept as printed)",
    traceback([
        ("/home/alice/proj/tts/train.py", 212, "<module>", "ckpt = torch.load(args.resume, map_location=\"cpu\")\n"
                                                          "       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
        *at("alice311", TORCH_LOAD["2.13"]),
    ], exc_line("weights_only_numpy")))

add(ID, "prose-ko", "ko", RAN + " (copied without the ANSI codes)",
    "torch 버전 올리고 나서 예전에 저장한 체크포인트가 안 불러와져요. 체크포인트 안에 args도 같이 저장했었어요.\n"
    + fence("_pickle.UnpicklingError: " + wo_message("argparse.Namespace", bold=False)))

add(ID, "prose-zh", "zh", known("2.6") + " (layout as torch 2.13 prints it)",
    "升级到 torch 2.6 之后 YOLOv8 的 best.pt 加载不了了，ultralytics 版本是 8.0.x：\n"
    + traceback([
        (r"D:\projects\yolo\detect.py", 8, "<module>", "model = YOLO(r\"runs\\detect\\train3\\weights\\best.pt\")"),
        (sp("win3", "ultralytics/nn/tasks.py"), 518, "torch_safe_load", "return torch.load(file, map_location='cpu'), file  # load"),
        *at("win3", TORCH_LOAD["2.6"]),
    ], "_pickle.UnpicklingError: " + wo_message("ultralytics.nn.tasks.DetectionModel", "DetectionModel", bold=False)))

add(ID, "line", "en", known("2.0-2.3") + " (weights_only=True passed explicitly)",
    "_pickle.UnpicklingError: Weights only load failed. Re-running `torch.load` with `weights_only` set to `False` "
    "will likely succeed, but it can result in arbitrary code execution.Do it only if you get the file from a "
    "trusted source. WeightsUnpickler error: Unsupported class numpy.core.multiarray._reconstruct")

add(ID, "traceback", "en", known("2.6") + "; chained: FileNotFoundError first, the real error second",
    chained(
        traceback([
            ("/srv/ranker/serve.py", 30, "load_model", "state = torch.load(os.path.join(ckpt_dir, \"best.pt\"))"),
            ("/usr/local/lib/python3.12/site-packages/torch/serialization.py", 1425, "load",
             "with _open_file_like(f, \"rb\") as opened_file:"),
            ("/usr/local/lib/python3.12/site-packages/torch/serialization.py", 751, "_open_file_like",
             "return _open_file(name_or_buffer, mode)"),
            ("/usr/local/lib/python3.12/site-packages/torch/serialization.py", 732, "__init__",
             "super().__init__(open(name, mode))"),
        ], "FileNotFoundError: [Errno 2] No such file or directory: '/models/ranker/best.pt'"),
        traceback([
            ("/srv/ranker/serve.py", 88, "<module>", "model = load_model(\"/models/ranker\")"),
            ("/srv/ranker/serve.py", 32, "load_model", "state = torch.load(os.path.join(ckpt_dir, \"last.pt\"))"),
            ("/usr/local/lib/python3.12/site-packages/torch/serialization.py", 1470, "load",
             "raise pickle.UnpicklingError(_get_wo_message(str(e))) from None"),
        ], "_pickle.UnpicklingError: " + wo_message("transformers.training_args.TrainingArguments", bold=False))))

add(ID, "truncated", "en", "torch 2.13 message cut mid-word",
    "_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two "
    "options, do those steps only if you trust the source of the checkpoint. \n"
    "\t(1) In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` "
    "to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result "
    "in arbitr")

add(ID, "traceback", "en", known("2.6+") + "; Colab layout, lightning frame written by hand",
    """
---------------------------------------------------------------------------
UnpicklingError                           Traceback (most recent call last)
[<ipython-input-4-ee0c7b2d91a3>](https://localhost:8080/#) in <cell line: 0>()
----> 1 model = LitClassifier.load_from_checkpoint("epoch=9-step=4690.ckpt")

6 frames
[/usr/local/lib/python3.11/dist-packages/lightning/fabric/utilities/cloud_io.py](https://localhost:8080/#) in _load(path_or_url, map_location, weights_only)
     56     fs = get_filesystem(path_or_url)
     57     with fs.open(path_or_url, "rb") as f:
---> 58         return torch.load(f, map_location=map_location, weights_only=weights_only)
     59 
     60 

UnpicklingError: """ + wo_message("omegaconf.listconfig.ListConfig", bold=False))
