"""Long-tail pasted errors about distributed training (process groups, ports, DDP hooks, torchrun
child failures, SyncBatchNorm on CPU), saving/loading (corrupt checkpoints, TorchScript archives,
pickled models whose module is gone) and compilers/export (Inductor backends, Dynamo graph
breaks, ONNX operators, TorchScript)."""

from __future__ import annotations

import re

from .longtail_common import RAN, RAN_FRAMES, RAN_LOG, known, line, log, msg, ran, rows, thread, thread_tb
from .render import CALL, at, fence, prefixed, slack_escape, traceback
from .sample import sample

ITEMS: list[dict] = []


def add(*args) -> None:
    ITEMS.append(sample(*args))


def fixed_port(text: str, port: int = 29500) -> str:
    """The capture binds a free port; pasted logs show a fixed one."""
    return re.sub(r"port: \d+", f"port: {port}", text)


# --- pytorch/process-group-not-initialized --------------------------------------------------------
ID = "pytorch/process-group-not-initialized"

add(ID, "line", "en", RAN, line("process_group_missing"))

add(ID, "traceback", "en", RAN_FRAMES + "; a DDP training script started with plain python instead of torchrun",
    traceback([
        ("/home/alice/proj/det/train.py", 310, "<module>", "main(args)"),
        ("/home/alice/proj/det/train.py", 122, "main", "dist.barrier()"),
        *at("alice311", rows("process_group_barrier")),
    ], line("process_group_barrier")))

add(ID, "prose-en", "en", thread("https://github.com/openvla/openvla/pull/78", "DDP(...) before init_process_group"),
    "single A100, wrapped the model in DDP without launching through torchrun:\n"
    "ValueError: Default process group has not been initialized, please make sure to call init_process_group.")

add(ID, "traceback", "en", thread_tb("https://github.com/open-mmlab/mmsegmentation/issues/809", "the 1.x RuntimeError wording in an IPython excerpt"),
    '''~/anaconda3/envs/openmmlab/lib/python3.7/site-packages/torch/distributed/distributed_c10d.py in _get_default_group()
    356     """
    357     if not is_initialized():
--> 358         raise RuntimeError("Default process group has not been initialized, "
    359                            "please make sure to call init_process_group.")
    360     return GroupMember.WORLD

RuntimeError: Default process group has not been initialized, please make sure to call init_process_group.''')

add(ID, "prose-zh", "zh", thread("https://github.com/Intellindust-AI-Lab/DEIM/issues/37", "python train.py instead of torchrun"),
    "直接用 python train.py 单卡训练就报这个，按网上说的改了也不行：\n"
    "ValueError: Default process group has not been initialized, please make sure to call init_process_group.")

add(ID, "prose-ko", "ko", thread("https://github.com/congvvc/InstructSeg/issues/7", "all_reduce in an evaluation script run on one GPU"),
    "평가 스크립트(test_res.sh)를 GPU 한 장으로 돌리면 all_reduce에서 이렇게 나와요.\n"
    "instructseg/eval/seg/eval_res.py\", line 71, in all_reduce\n    dist.all_reduce(total, dist.ReduceOp.SUM, async_op=False)\n"
    "ValueError: Default process group has not been initialized, please make sure to call init_process_group.")

add(ID, "truncated", "en", thread("https://github.com/megvii-model/YOLOF/issues/11", "one GPU, the 1.x wording, Slack-escaped"),
    slack_escape("when i run with only one GPU -> \"RuntimeError: Default process group has not been initialized, please make sure to call init_process_group.\""))


# --- pytorch/dist-address-in-use ------------------------------------------------------------------
ID = "pytorch/dist-address-in-use"

add(ID, "line", "en", RAN + "; the port number changed to 29500",
    fixed_port(line("address_in_use")))

add(ID, "prose-en", "en", thread("https://github.com/om-ai-lab/VLM-R1/issues/289", "a second training run on the same machine"),
    "started a second training while the first one is still running:\n"
    "RuntimeError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use.")

add(ID, "prose-zh", "zh", thread("https://github.com/modelscope/ms-swift/issues/3988", "MASTER_PORT exported but not used by the launcher"),
    "跑 swift sft 的时候报错，已经 export MASTER_PORT=29501 了，报错里还是 29500：\n"
    "RuntimeError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use")

add(ID, "traceback", "en", thread_tb("https://github.com/hunto/DIST_KD/issues/10", "torchrun log with the c10d socket warnings (torch 2.0), wrapped as pasted"),
    '''+ torchrun --nproc_per_node=2 --master_port=25641 tools/train.py -c configs/strategies/distill/dist_cifar.yaml --model cifar_resnet20 --teacher-model cifar_resnet56
WARNING:torch.distributed.run:
*****************************************
Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.
*****************************************
[W socket.cpp:426] [c10d] The server socket has failed to bind to [::]:25641 (errno: 98 - Address already in use).
[W socket.cpp:426] [c10d] The server socket has failed to bind to 0.0.0.0:25641 (errno: 98 - Address already in use).
[E socket.cpp:462] [c10d] The server socket has failed to listen on any local network address.''')

add(ID, "prose-ko", "ko", thread("https://github.com/showlab/Tune-A-Video/issues/90", "the 1.13-2.0 wording with errno 98"),
    "학습을 시작할 때마다 이 에러가 나요. 이전에 돌리던 프로세스가 안 죽은 것 같기도 해요.\n"
    "RuntimeError: The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use). "
    "The server socket has failed to bind to 0.0.0.0:29500 (errno: 98 - Address already in use).")

add(ID, "traceback", "en", thread_tb("https://github.com/vllm-project/vllm/issues/39015", "raised in torchrun's static TCP rendezvous (the agent, not a rank); 3.11 carets; the last line from the title"),
    '''  File "/mnt/bn/zjw-2/anaconda3/envs/vlm/lib/python3.11/site-packages/torch/distributed/elastic/agent/server/api.py", line 498, in _rendezvous
    rdzv_info = spec.rdzv_handler.next_rendezvous()
                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/mnt/bn/zjw-2/anaconda3/envs/vlm/lib/python3.11/site-packages/torch/distributed/elastic/rendezvous/static_tcp_rendezvous.py", line 67, in next_rendezvous
    self._store = TCPStore(  # type: ignore[call-arg]
                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use''')

add(ID, "truncated", "en", RAN + "; a DDP port of 12355 as in the tutorial, cut",
    fixed_port(line("address_in_use"), 12355)[:150])


# --- pytorch/ddp-mark-ready-twice --------------------------------------------------------------------
ID = "pytorch/ddp-mark-ready-twice"

READY_19 = ("RuntimeError: Expected to mark a variable ready only once. This error is caused by one of the following reasons: "
            "1) Use of a module parameter outside the `forward` function. Please make sure model parameters are not shared across multiple concurrent forward-backward passes"
            "2) Reused parameters in multiple reentrant backward passes. For example, if you use multiple `checkpoint` functions to wrap the same part of your model, "
            "it would result in the same set of parameters been used by different reentrant backward passes multiple times, and hence marking a variable ready multiple times. "
            "DDP does not support such use cases yet.")
READY_2X = ("RuntimeError: Expected to mark a variable ready only once. This error is caused by one of the following reasons: "
            "1) Use of a module parameter outside the `forward` function. Please make sure model parameters are not shared across multiple concurrent forward-backward passes. "
            "or try to use _set_static_graph() as a workaround if this module graph does not change during training loop.2) Reused parameters in multiple reentrant backward passes. "
            "For example, if you use multiple `checkpoint` functions to wrap the same part of your model, it would result in the same set of parameters been used by different "
            "reentrant backward passes multiple times, and hence marking a variable ready multiple times. DDP does not support such use cases in default. "
            "You can try to use _set_static_graph() as a workaround if your module graph does not change over iterations.")

add(ID, "line", "en", thread("https://github.com/Lyken17/pytorch-memonger/issues/6", "the 1.7-1.9 wording"), READY_19)

add(ID, "traceback", "en", thread_tb("https://github.com/huggingface/accelerate/issues/3536", "rank-prefixed, 2.5-era frames, LoRA with gradient checkpointing; trimmed"),
    prefixed('''  File "/home/cc/jupyter_env/lib/python3.12/site-packages/torch/autograd/graph.py", line 824, in _engine_run_backward
    return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
''' + READY_2X + '''
Parameter at index 695 with name base_model.model.model.layers.35.mlp.down_proj.lora_B.default.weight has been marked as ready twice. This means that multiple autograd engine  hooks have fired for this particular parameter during this iteration.''', "[rank1]: "))

add(ID, "prose-zh", "zh", thread("https://github.com/OpenBMB/VisRAG/issues/40", "only the parameter line kept"),
    "用自己的数据集微调时出现 Expected to mark a variable ready only once，后面还有一行：\n"
    "[rank1]: Parameter at index 677 with name lm_q.vpm.blocks.25.mlp.fc2.bias has been marked as ready twice. This means that multiple autograd engine  hooks have fired for this particular parameter during this iteration.\n"
    "听说要改 use_reentrant，具体怎么改？")

add(ID, "prose-en", "en", thread("https://github.com/czczup/ViT-Adapter/issues/102", "checkpointed blocks sharing parameters"),
    "moved ViT-Adapter into my codebase; with one InteractionBlock it trains, with two or more DDP says\n" + READY_2X)

add(ID, "prose-ko", "ko", thread("https://github.com/BBBBchan/CorrMatch/issues/33", "BEiT-Adapter backbone on 2 GPUs"),
    "백본을 BEiT-Adapter로 바꾸고 GPU 2장 DDP로 학습하면 backward에서 죽어요.\n```\n" + READY_2X +
    "\nParameter at index 583 with name backbone.interactions.3.extra_extractors.1.ffn.fc2.bias has been marked as ready twice.\n```")

add(ID, "traceback", "en", thread_tb("https://github.com/bytedance/ibot/issues/30", "torch 1.7, two ranks' output interleaved as pasted"),
    '''  File "/home/username/anaconda3/envs/py37/lib/python3.7/site-packages/torch/autograd/__init__.py", line 132, in backward
    return self._forward_cls.backward(self, *args)  # type: ignore
  File "/home/username/anaconda3/envs/py37/lib/python3.7/site-packages/torch/utils/checkpoint.py", line 99, in backward
    torch.autograd.backward(outputs, args)
  File "/home/username/anaconda3/envs/py37/lib/python3.7/site-packages/torch/autograd/__init__.py", line 132, in backward
    allow_unreachable=True)  # allow_unreachable flag
    torch.autograd.backward(outputs, args)
  File "/home/username/anaconda3/envs/py37/lib/python3.7/site-packages/torch/autograd/__init__.py", line 132, in backward
''' + READY_19 + "\n    allow_unreachable")

add(ID, "truncated", "en", thread("https://github.com/FlagOpen/FlagEmbedding/issues/787", "two ranks writing into one log, the message split mid-line"),
    "    Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass\n"
    "RuntimeError    : Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward passExpected to mark a variable ready only once. T")


# --- pytorch/elastic-child-failed ------------------------------------------------------------------
# Lines where the only PyTorch error visible is torchrun's ChildFailedError (a rank killed by a
# signal, or a rank that died of a plain user error such as a missing file).
ID = "pytorch/elastic-child-failed"

add(ID, "traceback", "en", RAN_LOG + "; timestamps, pids and host as the run printed them; the rank's own error is a FileNotFoundError",
    log("elastic_child_failed", "conda310", "/workspace/train.py", python="/opt/conda"))

add(ID, "traceback", "en", thread_tb("https://github.com/lzhxmu/CPPO/issues/6", "launched through accelerate/deepspeed, rank 0 killed by SIGKILL (host memory)"),
    '''  File "/home/tiger/.pyenv/versions/3.11.2/lib/python3.11/site-packages/torch/distributed/run.py", line 909, in run
    elastic_launch(
  File "/home/tiger/.pyenv/versions/3.11.2/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 138, in __call__
    return launch_agent(self._config, self._entrypoint, list(args))
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/tiger/.pyenv/versions/3.11.2/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 269, in launch_agent
    raise ChildFailedError(
torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
============================================================
src/open_r1/grpo_gsm.py FAILED
------------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2025-05-21_15:43:03
  host      : mlxlab115rp2n7682d40d9-20250521025625-6dyyd3-8nir8b-worker
  rank      : 0 (local_rank: 0)
  exitcode  : -9 (pid: 14750)
  error_file: <N/A>
  traceback : Signal 9 (SIGKILL) received by PID 14750
============================================================''')

add(ID, "prose-zh", "zh", thread("https://github.com/OpenBMB/MiniCPM-V/issues/770", "always at 40% of a LoRA run"),
    "LoRA 微调的时候总是准确地在进度 40% 报同样的错：\n"
    "torch/distributed/elastic/multiprocessing/api.py:826] failed (exitcode: -9) local_rank: 0 (pid: 1322) of binary: /root/miniconda3/bin/python\n"
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError")

add(ID, "prose-ko", "ko", thread("https://github.com/zai-org/ChatGLM2-6B/issues/520", "killed while loading checkpoint shards"),
    "파인튜닝을 시작하면 체크포인트 샤드를 읽다가 57%에서 죽어요.\n"
    "Loading checkpoint shards:  57% 4/7 [00:40<00:29,  9.96s/it]ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: 31631) of binary: /usr/bin/python3\n"
    "...\ntorch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n======================================================\nmain.py FAILED")

add(ID, "prose-en", "en", thread("https://github.com/ZhehengJiangLancaster/AMVUR/issues/2", "torch.distributed.launch, memory grows each epoch; summary retyped by the poster"),
    "python -m torch.distributed.launch --nproc_per_node=4 experiments/supervised_HO3D_v2.py dies in the fifth epoch:\n"
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\nexperiments/supervised HO3D V2.py FAILED\nFailures:\n<NO OTHER FAILURES>\n"
    "Root Cause (first observed failure) :\n[0]:\ntime\nhost\n2023-09-14 01:45:50\nding-X10DRG\nrank2 (local rank: 2)exitcode: -9 (pid: 36071)error file: <N/A>\n"
    "traceback : signal 9 (SIGKILL) received by PID 36071")

add(ID, "truncated", "en", thread_tb("https://github.com/hpcaitech/ColossalAI/issues/3514", "the agent's log lines before the traceback"),
    '''WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 812914 closing signal SIGTERM
WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 812915 closing signal SIGTERM
WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 812916 closing signal SIGTERM
ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 3 (pid: 812917) of binary: /data/chenhao/anaconda3/envs/ColossalAI-Chat/bin/python
Traceback (most recent call last):
  File "/data/chenhao/anaconda3/envs/ColossalAI-Chat/bin/torchrun", line 8, in <module>
    sys.exit(main())''')

add(ID, "line", "en", known("1.10-2.x", "the summary only, exit code 1"),
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n============================================================\ntrain.py FAILED\n"
    "------------------------------------------------------------\nFailures:\n  <NO_OTHER_FAILURES>")


# --- pytorch/syncbn-cpu ------------------------------------------------------------------------------
ID = "pytorch/syncbn-cpu"

add(ID, "line", "en", RAN, line("syncbn_cpu"))

add(ID, "traceback", "en", RAN_FRAMES + "; a DDP debug run with the gloo backend on CPU",
    traceback([
        ("/home/jiwoo/work/seg/train.py", 140, "train_step", "out = model(images)\n      ^^^^^^^^^^^^^"),
        *at("venv312", CALL["2.13"]),
        ("/home/jiwoo/work/seg/.venv/lib/python3.12/site-packages/torch/nn/parallel/distributed.py", 1667, "forward", "else self._run_ddp_forward(*inputs, **kwargs)"),
        *at("venv312", rows("syncbn_cpu")),
    ], line("syncbn_cpu")))

add(ID, "prose-en", "en", known("1.x-2.0", "the older wording (GPU only)"),
    "testing my DDP script on a laptop with backend='gloo', convert_sync_batchnorm was applied:\nValueError: SyncBatchNorm expected input tensor to be on GPU")

add(ID, "prose-ko", "ko", ran("the 2.13 wording; Korean prose"),
    "GPU 없는 개발 서버에서 gloo로 DDP 코드를 점검하는데 SyncBatchNorm에서 막혀요.\nValueError: " + msg("syncbn_cpu"))

add(ID, "prose-zh", "zh", known("2.1-2.4", "the XPU wording of those releases"),
    "在只有 CPU 的机器上用 torchrun 调试分布式训练，模型用了 SyncBatchNorm：\n"
    "ValueError: SyncBatchNorm expected input tensor to be on GPU or privateuseone")

add(ID, "truncated", "en", known("1.x-2.0", "only the raise and the message"),
    '''    raise ValueError("SyncBatchNorm expected input tensor to be on GPU")
ValueError: SyncBatchNorm expected input tensor to be on GPU''')

add(ID, "traceback", "en", known("1.13", "raised through Lightning's DDP strategy on CPU (accelerator='cpu', strategy='ddp', sync_batchnorm=True)"),
    traceback([
        ("/home/kim/proj/pl/train.py", 61, "<module>", "trainer.fit(model, dm)"),
        ("/home/kim/.venv/lib/python3.9/site-packages/pytorch_lightning/trainer/trainer.py", 608, "fit", "call._call_and_handle_interrupt("),
        ("/home/kim/proj/pl/model.py", 33, "training_step", "logits = self.net(x)"),
        *at("/home/kim/.venv/lib/python3.9/site-packages", CALL["1.13"]),
        ("/home/kim/.venv/lib/python3.9/site-packages/torch/nn/modules/batchnorm.py", 727, "forward", "raise ValueError(\"SyncBatchNorm expected input tensor to be on GPU\")"),
    ], "ValueError: SyncBatchNorm expected input tensor to be on GPU"))


# --- pytorch/checkpoint-corrupt -----------------------------------------------------------------------
ID = "pytorch/checkpoint-corrupt"

add(ID, "line", "en", RAN + "; a checkpoint cut in half (the 2.x message with its hint)", line("checkpoint_truncated"))

add(ID, "traceback", "en", thread_tb("https://github.com/CompVis/stable-diffusion/issues/93", "Windows conda, torch 1.11-era serialization.py frames"),
    r'''Traceback (most recent call last):
  File "scripts/txt2img.py", line 344, in <module>
    main()
  File "scripts/txt2img.py", line 240, in main
    model = load_model_from_config(config, f"{opt.ckpt}")
  File "scripts/txt2img.py", line 50, in load_model_from_config
    pl_sd = torch.load(ckpt, map_location="cpu")
  File "C:\Users\Simon\anaconda3\envs\ldm\lib\site-packages\torch\serialization.py", line 705, in load
    with _open_zipfile_reader(opened_file) as opened_zipfile:
  File "C:\Users\Simon\anaconda3\envs\ldm\lib\site-packages\torch\serialization.py", line 243, in __init__
    super(_open_zipfile_reader, self).__init__(torch._C.PyTorchFileReader(name_or_buffer))
RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory''')

add(ID, "traceback", "en", thread_tb("https://github.com/NVIDIA/pix2pixHD/issues/243", "torch 1.7 '[enforce fail at inline_container.cc:145]' wording; chained, trimmed"),
    '''Traceback (most recent call last):
  File "/pix2pixHD/models/base_model.py", line 62, in load_network
    network.load_state_dict(torch.load(save_path))
  File "/usr/local/lib/python3.7/dist-packages/torch/serialization.py", line 587, in load
    with _open_zipfile_reader(opened_file) as opened_zipfile:
  File "/usr/local/lib/python3.7/dist-packages/torch/serialization.py", line 242, in __init__
    super(_open_zipfile_reader, self).__init__(torch._C.PyTorchFileReader(name_or_buffer))
RuntimeError: [enforce fail at inline_container.cc:145] . PytorchStreamReader failed reading zip archive: failed finding central directory

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "test.py", line 27, in <module>
    model = create_model(opt)
  File "/pix2pixHD/models/base_model.py", line 64, in load_network
    pretrained_dict = torch.load(save_path)
RuntimeError: [enforce fail at inline_container.cc:145] . PytorchStreamReader failed reading zip archive: failed finding central directory''')

add(ID, "prose-en", "en", thread("https://github.com/gaomingqi/Track-Anything/issues/103", "an incomplete download"),
    "python app.py --device cuda:0 downloads the checkpoints fine and then\n"
    "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory")

add(ID, "prose-zh", "zh", thread("https://github.com/Akegarasu/lora-scripts/issues/180", "a .pth download that failed half-way"),
    "训练开始时要下载一个 pth 文件，下载失败了，之后就一直提示：\n"
    "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory")

add(ID, "prose-ko", "ko", thread("https://github.com/thisserand/tortoise_local/issues/2", "Windows miniconda, torch 2.0 frames"),
    "tortoise-tts를 처음 실행하면 모델을 읽다가 이렇게 죽어요.\n"
    '  File "C:\\Users\\M FL\\miniconda3\\lib\\site-packages\\torch\\serialization.py", line 797, in load\n'
    "    with _open_zipfile_reader(opened_file) as opened_zipfile:\n"
    "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory")

add(ID, "truncated", "en", known("1.x", "the legacy (non-zip) format variant of a corrupt file"),
    "    result = unpickler.load()\nRuntimeError: storage has wrong size: expected -4738698913041211162 got 512")

add(ID, "traceback", "en", thread_tb("https://github.com/innnky/so-vits-svc/issues/169", "a hard one: raised in a torch.multiprocessing.spawn child and re-raised by the parent"),
    '''   raise ProcessRaisedException(msg, error_index, failed_process.pid)
torch.multiprocessing.spawn.ProcessRaisedException: 

-- Process 0 terminated with the following error:
Traceback (most recent call last):
  File "/usr/local/lib/python3.8/dist-packages/torch/multiprocessing/spawn.py", line 69, in _wrap
    fn(i, *args)
  File "/usr/local/lib/python3.8/dist-packages/torch/serialization.py", line 242, in __init__
    super(_open_zipfile_reader, self).__init__(torch._C.PyTorchFileReader(name_or_buffer))
RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory''')


# --- pytorch/torchscript-archive-load ---------------------------------------------------------------
# Loading with the wrong loader: a TorchScript archive through torch.load or pickle, or a
# torch.save file through torch.jit.load (which 2.x reports as a missing constants.pkl).
ID = "pytorch/torchscript-archive-load"

add(ID, "traceback", "en", RAN_FRAMES + "; torch.jit.load on a file written by torch.save; a hard one, the message looks like a corrupt checkpoint",
    traceback([
        ("/srv/serve/handler.py", 31, "initialize", "self.model = torch.jit.load(model_path, map_location=self.device)\n             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
        *at("conda310", rows("jit_load_of_torch_save")),
    ], line("jit_load_of_torch_save")))

add(ID, "traceback", "en", thread_tb("https://github.com/pytorch/pytorch/issues/50261", "resuming with torch.load on a scripted checkpoint inside mp.spawn (torch 1.6-1.7)"),
    '''-- Process 0 terminated with the following error:
Traceback (most recent call last):
File "/root/miniconda3/envs/myconda/lib/python3.7/site-packages/torch/multiprocessing/spawn.py", line 19, in _wrap
fn(i, *args)
File "/mnt/cavaface.pytorch/train.py", line 222, in main_worker
backbone.load_state_dict(torch.load(BACKBONE_RESUME_ROOT, map_location=loc))
File "/root/miniconda3/envs/myconda/lib/python3.7/site-packages/torch/serialization.py", line 528, in load
return _load(opened_zipfile, map_location, pickle_module, **pickle_load_args)
File "/root/miniconda3/envs/myconda/lib/python3.7/site-packages/torch/serialization.py", line 782, in _load
result = unpickler.load()
ModuleNotFoundError: No module named '__torch__\'''')

add(ID, "prose-en", "en", RAN + "; torch.load (weights_only default) on a TorchScript file",
    "our export step writes model.pt with torch.jit.save, and the eval script does torch.load(model.pt):\nRuntimeError: " + msg("torch_load_of_torchscript"))

add(ID, "prose-zh", "zh", thread("https://github.com/triton-inference-server/server/issues/3056", "a python checkpoint served as a TorchScript model"),
    "用 Triton 的 pytorch backend 部署模型，加载的时候报 file not found: archive/constants.pkl，我直接放的是 torch.save 保存的 .pt 文件。")

add(ID, "prose-ko", "ko", ran("the pickle of a TorchScript archive, read directly"),
    "torch.jit.save로 저장한 파일 안의 data.pkl을 pickle로 직접 열어보려고 했더니 이렇게 나와요.\nModuleNotFoundError: " + msg("torchscript_via_pickle"))

add(ID, "line", "en", known("1.2-1.x (libtorch)", "torch::jit::load in C++ on a file saved with torch.save in Python"),
    "terminate called after throwing an instance of 'c10::Error'\n  what():  [enforce fail at inline_container.cc:222] . file not found: archive/constants.pkl")

add(ID, "truncated", "en", thread("https://github.com/fan-ziqi/rl_sar/issues/71", "a hard one: the warning shows torch.load dispatched to torch.jit.load, the later error is only a symptom"),
    "/opt/conda/lib/python3.8/site-packages/torch/serialization.py:799: UserWarning: 'torch.load' received a zip file that looks like a TorchScript archive dispatching to 'torch.jit.load' (call 'torch.jit.load' directly to silence this warning)\n"
    "  warnings.warn(\"'torch.load' received a zip file that looks like a TorchScript archive\"")

add(ID, "prose-en", "en", known("1.0-1.3 (libtorch)", "the C++ loader on a torch.save file, the 'hasRecord' wording"),
    "<@U05TORCHBOT> loading our model in the C++ service with torch::jit::load(\"model.pt\"):\n"
    "```terminate called after throwing an instance of 'c10::Error'\n"
    "  what():  Expected hasRecord(\"version\") to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)```")


# --- pytorch/pickled-model-module-missing -------------------------------------------------------------
ID = "pytorch/pickled-model-module-missing"

add(ID, "traceback", "en", RAN_FRAMES + "; a whole model saved with torch.save, loaded where its module is gone (weights_only=False)",
    traceback([
        ("/home/jiwoo/work/deploy/predict.py", 9, "<module>", "model = torch.load(\"model.pt\", weights_only=False)\n        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
        *at("venv312", rows("pickled_module_missing")),
    ], line("pickled_module_missing")))

add(ID, "traceback", "en", RAN_LOG + "; the class lived in the training script's __main__",
    log("pickled_main_class", "kaggle", "/kaggle/working/predict.py", directory="/kaggle/working"))

add(ID, "traceback", "en", thread_tb("https://github.com/Akbonline/Social-Distancing-using-YOLOv5/issues/1", "YOLOv5 weights loaded outside the yolov5 repo, Windows, torch 1.8"),
    r'''Traceback (most recent call last):
  File "detect.py", line 166, in <module>
    detect()
  File "detect.py", line 21, in detect
    model = torch.load(weights, map_location=device)['model'].float()  # load to FP32
  File "H:\Anaconda3\envs\yolo_sd\lib\site-packages\torch\serialization.py", line 607, in load
    return _load(opened_zipfile, map_location, pickle_module, **pickle_load_args)
  File "H:\Anaconda3\envs\yolo_sd\lib\site-packages\torch\serialization.py", line 882, in _load
    result = unpickler.load()
  File "H:\Anaconda3\envs\yolo_sd\lib\site-packages\torch\serialization.py", line 875, in find_class
    return super().find_class(mod_name, name)
ModuleNotFoundError: No module named 'models\'''')

add(ID, "traceback", "en", thread_tb("https://github.com/ai-med/relaynet_pytorch/issues/4", "Jupyter, torch 0.4 frames"),
    """ModuleNotFoundError                       Traceback (most recent call last)
<ipython-input-50-4839094a99d3> in <module>()
      4 from torch.autograd import Variable
      5 
----> 6 relaynet_model =  torch.load('models/relaynet_good.model')

~/.local/lib/python3.6/site-packages/torch/serialization.py in load(f, map_location, pickle_module)
    301         f = open(f, 'rb')
    302     try:
--> 303         return _load(f, map_location, pickle_module)
    304     finally:
    305         if new_fd:

~/.local/lib/python3.6/site-packages/torch/serialization.py in _load(f, map_location, pickle_module)
    467     unpickler = pickle_module.Unpickler(f)
    468     unpickler.persistent_load = persistent_load
--> 469     result = unpickler.load()

ModuleNotFoundError: No module named 'networks.classifiers'""")

add(ID, "prose-ko", "ko", thread("https://github.com/mikel-brostrom/boxmot/issues/70", "Windows anaconda, torch 1.7"),
    "트래킹 예제(track.py)를 돌리면 yolov5 가중치를 불러오는 데서 이렇게 나와요.\n"
    '  File "C:\\Users\\Welcome\\anaconda3\\lib\\site-packages\\torch\\serialization.py", line 853, in _load\n'
    "    result = unpickler.load()\nModuleNotFoundError: No module named 'models'")

add(ID, "prose-zh", "zh", thread("https://github.com/ultralytics/yolov5/issues/9490", "the weights copied into another project"),
    "把训练好的 yolov5 权重放到自己的项目里用 torch.load 加载，报：\n"
    '  File "C:\\Users\\deepak.s\\Anaconda3\\envs\\yolo_v5\\lib\\site-packages\\torch\\serialization.py", line 1042, in find_class\n'
    "    return super().find_class(mod_name, name)\nModuleNotFoundError: No module named 'models'")

add(ID, "prose-en", "en", known("1.x-2.x", "the AttributeError form of the class: a class renamed after saving"),
    "renamed my model class from Net to SegNet in model.py and now the old checkpoint won't load:\n"
    "AttributeError: Can't get attribute 'Net' on <module 'model' from '/home/kim/seg/model.py'>")

add(ID, "truncated", "en", thread("https://github.com/Bing-su/adetailer/issues/314", "rich box through ADetailer, only the unpickler frame and the message"),
    """    │ │ ❱ 1172 │   result = unpickler.load()                                                             │             │
    │ │   1173 │                                                                                         │             │
ModuleNotFoundError: No module named 'models.yolo'""")

add(ID, "truncated", "en", known("2.x", "a notebook's class loaded from a plain script; the serialization frame decides it against worker-pickle"),
    '  File "/home/alice/proj/serve/.venv/lib/python3.11/site-packages/torch/serialization.py", line 1478, in find_class\n'
    "    return super().find_class(mod_name, name)\n"
    "AttributeError: Can't get attribute 'LSTMForecaster' on <module '__main__' from '/home/alice/proj/serve/app.py'>")


# --- pytorch/dynamo-backend-failed -------------------------------------------------------------------
ID = "pytorch/dynamo-backend-failed"

SUPPRESS = ("\nSet TORCH_LOGS=\"+dynamo\" and TORCHDYNAMO_VERBOSE=1 for more information\n\n"
            "You can suppress this exception and fall back to eager by setting:\n    import torch._dynamo\n    torch._dynamo.config.suppress_errors = True")

add(ID, "traceback", "en", thread_tb("https://github.com/pytorch/pytorch/issues/125093", "Python 3.12 carets, torch 2.3; trimmed"),
    '''  File "/home/mfbalin/.venvs/venv/lib/python3.12/site-packages/torch/_inductor/scheduler.py", line 711, in _compute_attrs
    group_fn = self.scheduler.get_backend(self.node.get_device()).group_fn
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/mfbalin/.venvs/venv/lib/python3.12/site-packages/torch/_inductor/scheduler.py", line 2436, in get_backend
    self.backends[device] = self.create_backend(device)
                            ^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/mfbalin/.venvs/venv/lib/python3.12/site-packages/torch/_inductor/scheduler.py", line 2428, in create_backend
    raise RuntimeError(
torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:
RuntimeError: Cannot find a working triton installation. More information on installing Triton can be found at https://github.com/openai/triton
''' + SUPPRESS)

add(ID, "prose-en", "en", thread("https://github.com/welltop-cn/ComfyUI-TeaCache/issues/40", "Windows ComfyUI node with torch.compile"),
    "enabled the compile option in the node and got\nbackend='inductor' raised:\n"
    "RuntimeError: Cannot find a working triton installation. Either the package is not installed or it is too old. More information on installing Triton can be found at https://github.com/openai/triton"
    + SUPPRESS + "\ndo i need to downgrade python?")

add(ID, "traceback", "en", thread_tb("https://github.com/kijai/ComfyUI-WanVideoWrapper/issues/978", "the 2.6+ TritonMissing wording, Windows portable build; trimmed"),
    r'''    raise e.remove_dynamo_frames() from None  # see TORCHDYNAMO_VERBOSE=1
    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "G:\ComfyUI_windows_portable\python_embeded\Lib\site-packages\torch\_inductor\scheduler.py", line 3957, in create_backend
    raise TritonMissing(inspect.currentframe())
torch._inductor.exc.TritonMissing: Cannot find a working triton installation. Either the package is not installed or it is too old. More information on installing Triton can be found at: https://github.com/triton-lang/triton

Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace (please do this especially if you're reporting a bug to PyTorch). For even more developer context, set TORCH_LOGS="+dynamo"''')

add(ID, "prose-zh", "zh", thread("https://github.com/triton-lang/triton/issues/3708", "nnUNet training at epoch 600, torch 2.1"),
    "nnUNet 训练到第 600 个 epoch 突然报错，之前一直正常：\n"
    "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised: RuntimeError: Cannot find a working triton installation. More information on installing Triton can be found at https://github.com/openai/triton")

add(ID, "prose-ko", "ko", known("2.1-2.5", "a C++ compiler missing for the CPU backend of Inductor (Windows)"),
    "윈도우에서 CPU로 torch.compile을 켰더니 첫 스텝에서 이렇게 죽어요. Visual Studio 빌드 도구는 안 깔려 있어요.\n"
    "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\nRuntimeError: Compiler: cl is not found.")

add(ID, "line", "en", thread("https://github.com/triton-lang/triton/issues/4034"),
    "RuntimeError: Cannot find a working triton installation. More information on installing Triton can be found at https://github.com/openai/triton")

add(ID, "truncated", "en", thread_tb("https://github.com/chengzeyi/Comfy-WaveSpeed/issues/20", "a hard one: Triton found, but its compilation of the generated kernel failed; only the kernel source and the hint kept"),
    '''    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), None)
    tmp1 = tmp0.to(tl.float32)
           ^
''' + SUPPRESS)


# --- pytorch/dynamo-unsupported -------------------------------------------------------------------------
ID = "pytorch/dynamo-unsupported"


def dyn(key: str, path: str, line_no: int, code: str) -> str:
    """A captured Dynamo message with the capture script's location replaced by the user's."""
    text = msg(key)
    text = re.sub(r'File "\{SCRIPT}", line \d+, in (\w+)', f'File "{path}", line {line_no}, in \\1', text)
    text = re.sub(r'# File "\{SCRIPT}", line \d+', f'# File "{path}", line {line_no}', text)
    return text


add(ID, "traceback", "en", RAN + "; fullgraph=True with a print in forward; user path changed",
    traceback([
        ("/home/jiwoo/work/llm/train.py", 74, "<module>", "loss = compiled_step(batch)\n       ^^^^^^^^^^^^^^^^^^^^^^^^^^"),
        *at("venv312", rows("dynamo_print")),
    ], "torch._dynamo.exc.Unsupported: " + dyn("dynamo_print", "/home/jiwoo/work/llm/model.py", 88, "print")))

add(ID, "line", "en", RAN + "; only the first line of the 2.13 message", "torch._dynamo.exc.Unsupported: " + msg("dynamo_branch").splitlines()[0])

add(ID, "prose-en", "en", RAN + "; data-dependent control flow, Slack-escaped fence",
    "<@U05TORCHBOT> torch.compile(fullgraph=True) refuses my clamp helper:\n"
    + slack_escape(fence("torch._dynamo.exc.Unsupported: " + dyn("dynamo_branch", "/workspace/model/utils.py", 41, "if"))))

add(ID, "prose-ko", "ko", RAN + "; tolist() on a float tensor",
    "torch.compile(fullgraph=True)로 감싼 후처리 함수에서 tolist()를 쓰면 이렇게 나와요.\n"
    "torch._dynamo.exc.Unsupported: " + msg("dynamo_tolist").splitlines()[0] + "\n" + msg("dynamo_tolist").splitlines()[1])

add(ID, "traceback", "en", RAN_LOG + "; the recompile-limit warning of the class (dtype changes on every call)",
    log("recompile_limit", "alice311", "/home/alice/proj/serve/kernels.py"))

add(ID, "prose-zh", "zh", known("2.1-2.4", "the older Unsupported wording"),
    "用 torch.compile(fullgraph=True) 编译模型时报错，forward 里留了一个调试用的 print：\n"
    "torch._dynamo.exc.Unsupported: call_function BuiltinVariable(print) [ConstantVariable(str)] {}\n\n"
    "from user code:\n   File \"/root/model.py\", line 55, in forward\n    print(\"shape\", x.shape)")

add(ID, "truncated", "en", known("2.0-2.5", "the cache_size_limit wording of the recompile warning"),
    "[2024-05-02 11:04:12,530] torch._dynamo.convert_frame: [WARNING] torch._dynamo hit config.cache_size_limit (8)\n"
    "   function: 'forward' (/workspace/model.py:120)\n   last reason: ___check_obj_id(L['self'].mask, 140233110431424)")

add(ID, "prose-en", "en", known("2.2-2.5", "graph break inside a Hugging Face model under fullgraph=True: a hard one"),
    "compiling a transformers model with fullgraph=True:\n"
    "torch._dynamo.exc.Unsupported: Logger not supported for non-export cases\n\nfrom user code:\n"
    "   File \"/opt/conda/lib/python3.10/site-packages/transformers/models/llama/modeling_llama.py\", line 1004, in forward\n"
    "    logger.warning_once(")


# --- pytorch/onnx-unsupported-operator -------------------------------------------------------------------
ID = "pytorch/onnx-unsupported-operator"

add(ID, "traceback", "en", thread_tb("https://github.com/pytorch/pytorch/issues/110859", "torch 1.13, the TorchScript-based exporter"),
    '''  File "/mnt/coding/singularity/multi_view_3d/tools/test2onnx_nopre.py", line 420, in main
    torch.onnx.export(
  File "/home/jidudev/.local/lib/python3.8/site-packages/torch/onnx/utils.py", line 504, in export
    _export(
  File "/home/jidudev/.local/lib/python3.8/site-packages/torch/onnx/utils.py", line 1529, in _export
    graph, params_dict, torch_out = _model_to_graph(
  File "/home/jidudev/.local/lib/python3.8/site-packages/torch/onnx/utils.py", line 1115, in _model_to_graph
    graph = _optimize_graph(
  File "/home/jidudev/.local/lib/python3.8/site-packages/torch/onnx/utils.py", line 663, in _optimize_graph
    graph = _C._jit_pass_onnx(graph, operator_export_type)
  File "/home/jidudev/.local/lib/python3.8/site-packages/torch/onnx/utils.py", line 1909, in _run_symbolic_function
    raise errors.UnsupportedOperatorError(
torch.onnx.errors.UnsupportedOperatorError: Exporting the operator 'aten::lift_fresh' to ONNX opset version 13 is not supported. Please feel free to request support or submit a pull request on PyTorch GitHub: https://github.com/pytorch/pytorch/issues''')

add(ID, "line", "en", thread("https://github.com/huggingface/optimum/pull/1331", "the message that names the opset where support was added"),
    "torch.onnx.errors.UnsupportedOperatorError: Exporting the operator 'aten::tril' to ONNX opset version 13 is not supported. Support for this operator was added in version 14, try exporting with this version.")

add(ID, "prose-en", "en", thread("https://github.com/pytorch/pytorch/issues/71150", "1.10 wording (RuntimeError)"),
    "exporting my 5-input model with opset_version=12:\n"
    "RuntimeError: Exporting the operator uniform to ONNX opset version 12 is not supported. Please feel free to request support or submit a pull request on PyTorch GitHub.")

add(ID, "prose-zh", "zh", thread("https://github.com/pytorch/pytorch/issues/131635", "pointnet++ with randint in the model"),
    "用自己的数据训练了 pointnet++，想转 onnx 再用 TensorRT 加速，导出时报错：\n"
    "torch.onnx.errors.UnsupportedOperatorError: Exporting the operator 'aten::randint' to ONNX opset version 14 is not supported.")

add(ID, "prose-ko", "ko", thread("https://github.com/pytorch/pytorch/issues/124716", "nn.TransformerEncoder at opset 12"),
    "TransformerEncoder가 들어간 모델을 opset_version=12로 ONNX 내보내기 하면 이렇게 나와요.\n"
    "torch.onnx.errors.UnsupportedOperatorError: Exporting the operator 'aten::unflatten' to ONNX opset version 12 is not supported.")

add(ID, "traceback", "en", thread_tb("https://github.com/pytorch/pytorch/issues/56905", "pytest output of torch 1.8's symbolic_registry, fairseq transformer"),
    '''opname = 'outer', domain = '', version = 13

    def get_registered_op(opname, domain, version):
        if domain is None or version is None:
            warnings.warn("ONNX export failed. The ONNX domain and/or version are None.")
        global _registry
        if not is_registered_op(opname, domain, version):
            msg = "Exporting the operator " + opname + " to ONNX opset version " + str(version) + " is not supported. "
>           raise RuntimeError(msg)
E           RuntimeError: Exporting the operator outer to ONNX opset version 13 is not supported. Please feel free to request support or submit a pull request on PyTorch GitHub.''')

add(ID, "truncated", "en", thread("https://github.com/pytorch/pytorch/issues/77316", "the 1.11 module path symbolic_registry"),
    "torch.onnx.symbolic_registry.UnsupportedOperatorError: Exporting the operator prim::DictConstruct to ONNX opset version 14 is not supported. Please feel free to request sup")


# --- pytorch/torchscript-unsupported --------------------------------------------------------------------
ID = "pytorch/torchscript-unsupported"


def jit(key: str, path: str, line_no: int) -> str:
    """A captured TorchScript frontend message with the capture script's location replaced."""
    return re.sub(r'File "\{SCRIPT}", line \d+', f'File "{path}", line {line_no}', msg(key))


add(ID, "traceback", "en", RAN_FRAMES + "; *args in a scripted function; user path changed",
    traceback([
        ("/home/alice/proj/export/export.py", 22, "<module>", "scripted = torch.jit.script(postprocess)\n           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
        *at("alice311", rows("jit_varargs")),
    ], "torch.jit.frontend.NotSupportedError: " + jit("jit_varargs", "/home/alice/proj/export/postprocess.py", 8)))

add(ID, "line", "en", RAN + "; only the first line", "torch.jit.frontend.UnsupportedNodeError: " + msg("jit_try").splitlines()[0])

add(ID, "prose-en", "en", RAN + "; a lambda inside forward",
    "scripting the model for the C++ server fails on a tiny helper:\n```\ntorch.jit.frontend.UnsupportedNodeError: "
    + jit("jit_lambda", "/workspace/model/heads.py", 57) + "\n```")

add(ID, "prose-ko", "ko", RAN + "; try/except in forward",
    "forward 안에 try/except가 있는 모델을 torch.jit.script 하려니까 이렇게 나와요. 예외 처리를 빼야 하나요?\n"
    "torch.jit.frontend.UnsupportedNodeError: " + jit("jit_try", "/home/jiwoo/work/app/model.py", 33))

add(ID, "prose-zh", "zh", known("1.x-2.x", "the 'is currently not supported in Torchscript' wording"),
    "用 torch.jit.script 导出模型，里面调用了 python 内置函数：\n"
    "RuntimeError: Python builtin <built-in function iter> is currently not supported in Torchscript:\n"
    "  File \"/root/det/postprocess.py\", line 41\n        it = iter(boxes)\n             ~~~~ <--- HERE")

add(ID, "truncated", "en", known("1.x-2.x", "a dict comprehension in an older release, cut after the marker"),
    "torch.jit.frontend.NotSupportedError: Comprehension ifs are not supported yet:\n  File \"/workspace/nlp/vocab.py\", line 19\n"
    "        ids = [self.stoi[t] for t in tokens if t in self.stoi]\n                                          ~~ <--- HERE")

add(ID, "traceback", "en", known("1.13-2.x", "keyword-only args in a timm-style block: a hard one, raised while scripting a library model"),
    traceback([
        ("/home/kim/export/to_ts.py", 14, "<module>", "ts = torch.jit.script(timm.create_model('convnext_tiny'))"),
        ("/home/kim/.venv/lib/python3.10/site-packages/torch/jit/_script.py", 1284, "script", "return torch.jit._recursive.create_script_module("),
        ("/home/kim/.venv/lib/python3.10/site-packages/torch/jit/frontend.py", 325, "build_param_list", "raise NotSupportedError(ctx_range, _vararg_kwarg_err)"),
    ], "torch.jit.frontend.NotSupportedError: Compiled functions can't take variable number of arguments or use keyword-only arguments with defaults:\n"
       "  File \"/home/kim/.venv/lib/python3.10/site-packages/timm/layers/mlp.py\", line 52\n    def forward(self, x, **kwargs):\n                          ~~~~~~~ <--- HERE"))

add("pytorch/dynamo-unsupported", "prose-en", "en",
    thread("https://github.com/pytorch/pytorch/issues/125138", "an assert on an autograd.Function inside forward; Slack-escaped as delivered"),
    "<@U05TORCHBOT> " + slack_escape("compiled model graph-breaks at `assert MyExp is not None` & TORCH_LOGS shows\n"
                                     "torch._dynamo.exc.Unsupported: comparison AutogradFunctionVariable() <built-in function is_not> ConstantVariable(NoneType)"))
