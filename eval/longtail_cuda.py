"""Long-tail pasted errors about CUDA, devices and the installation: cuBLAS status codes, device
ordinals, CUDA in forked workers, busy GPUs, launch failures, attention kernels, MPS on macOS,
Windows DLLs, undefined symbols, torchvision operators and NumPy 2 binaries.

None of these can be raised on this CPU machine: every line comes from a public thread or
from the known wording of a release, as its note says."""

from __future__ import annotations

from .longtail_common import known, known_gpu, line, ran, thread, thread_tb
from .render import CALL, at, prefixed, slack_escape, traceback
from .sample import sample

ITEMS: list[dict] = []


def add(*args) -> None:
    ITEMS.append(sample(*args))


SYNC_HINT = ("CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
             "For debugging consider passing CUDA_LAUNCH_BLOCKING=1")
SYNC_HINT_24 = SYNC_HINT + "\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."


# --- pytorch/cublas-status -------------------------------------------------------------------------
ID = "pytorch/cublas-status"

add(ID, "line", "en", thread("https://github.com/jadore801120/attention-is-all-you-need-pytorch/issues/193"),
    "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`")

add(ID, "traceback", "en", thread_tb("https://github.com/facebookresearch/SparseConvNet/issues/208", "RTX 3080 with cudatoolkit 10.0 and torch 1.3.1"),
    '''Traceback (most recent call last):
  File "setup.py", line 12, in <module>
    assert torch.matmul(torch.ones(2097153,2).cuda(),torch.ones(2,2).cuda()).min().item()==2, 'Please upgrade from CUDA 9.0 to CUDA 10.0+'
RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`''')

add(ID, "prose-en", "en", thread("https://github.com/clovaai/bros/issues/14", "the fp16 GEMM variant"),
    "training with CUDA_VISIBLE_DEVICES=0 python3 train.py --config=configs/custom.yaml crashes in the first steps:\n"
    "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16F, lda, b, CUDA_R_16F, ldb, &fbeta, c, CUDA_R_16F, ldc, CUDA_R_32F, CUBLAS_GEMM_DFALT_TENSOR_OP)`")

add(ID, "prose-zh", "zh", thread("https://github.com/bubbliiiing/classification-pytorch/issues/33", "cuda 10.0 with a mismatched cudnn"),
    "报错 RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling cublasSgemm，环境是 cuda10.0、cudnn7.4.0，"
    "conda list 里看到的 cudnn 又是 7.6.5，CPU 能跑但是太慢。")

add(ID, "prose-ko", "ko", known_gpu("1.8-2.x", "the handle cannot be created, usually because the GPU is already full"),
    "다른 사람이 같은 GPU에서 큰 모델을 돌리고 있을 때 제 스크립트를 켜면 첫 nn.Linear에서 이렇게 죽어요.\n"
    "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`")

add(ID, "traceback", "en", known_gpu("2.1", "CUBLAS_STATUS_ALLOC_FAILED in a linear layer; a hard one, it is often an out-of-memory in disguise"),
    traceback([
        ("/workspace/llm/generate.py", 88, "<module>", "out = model.generate(**inputs, max_new_tokens=256)"),
        ("/opt/conda/lib/python3.10/site-packages/transformers/models/llama/modeling_llama.py", 1183, "forward", "logits = self.lm_head(hidden_states)"),
        *at("conda310", CALL["2.1"]),
        ("/opt/conda/lib/python3.10/site-packages/torch/nn/modules/linear.py", 114, "forward", "return F.linear(input, self.weight, self.bias)"),
    ], "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`"))

add(ID, "truncated", "en", thread_tb("https://github.com/vsitzmann/siren/issues/68", "torch 1.5-era frames, cut before the message; message from the issue title"),
    '''  File "/home/arrigo/projects/siren/torchmeta/modules/container.py", line 12, in forward
    input = module(input, params=get_subdict(params, name))
  File "/home/arrigo/anaconda3/envs/siren/lib/python3.6/site-packages/torch/nn/modules/module.py", line 550, in __call__
    result = self.forward(*input, **kwargs)
RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`''')

add(ID, "prose-en", "en", known_gpu("2.x", "the strided-batched GEMM of attention, Slack-escaped"),
    "<@U05TORCHBOT> bf16 fine-tune on an A100 " + slack_escape(
        "& it dies in the attention matmul:\nRuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling "
        "`cublasGemmStridedBatchedEx(handle, opa, opb, (int)m, (int)n, (int)k, (void*)&falpha, a, CUDA_R_16BF, (int)lda, stridea, b, CUDA_R_16BF, (int)ldb, strideb, (void*)&fbeta, c, CUDA_R_16BF, (int)ldc, stridec, (int)num_batches, compute_type, CUBLAS_GEMM_DEFAULT_TENSOR_OP)`"))


# --- pytorch/invalid-device-ordinal ---------------------------------------------------------------
ID = "pytorch/invalid-device-ordinal"

add(ID, "traceback", "en", thread_tb("https://github.com/LuyaooChen/uninformed-students-pytorch/issues/3", "cuda:1 on a one-GPU machine, torch 1.6-era frames"),
    '''Traceback (most recent call last):
  File "teacher_train.py", line 61, in <module>
    model = _Teacher(patch_size).to(device)
  File "/home/dit-train-3/anaconda3/envs/pytorch_test/lib/python3.8/site-packages/torch/nn/modules/module.py", line 612, in to
    return self._apply(convert)
  File "/home/dit-train-3/anaconda3/envs/pytorch_test/lib/python3.8/site-packages/torch/nn/modules/module.py", line 359, in _apply
    module._apply(fn)
  File "/home/dit-train-3/anaconda3/envs/pytorch_test/lib/python3.8/site-packages/torch/nn/modules/module.py", line 381, in _apply
    param_applied = fn(param)
  File "/home/dit-train-3/anaconda3/envs/pytorch_test/lib/python3.8/site-packages/torch/nn/modules/module.py", line 610, in convert
    return t.to(device, dtype if t.is_floating_point() else None, non_blocking)
RuntimeError: CUDA error: invalid device ordinal''')

add(ID, "line", "en", thread("https://github.com/wdrink/PyDeepFakeDet/issues/1", "with the 1.10-2.0 hint lines"),
    "RuntimeError: CUDA error: invalid device ordinal\nCUDA kernel errors might be asynchronously reported at some other API call,so the stacktrace below might be incorrect.\n"
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.")

add(ID, "prose-zh", "zh", thread("https://github.com/yuanzhoulvpi2017/DocumentSearch/issues/4", "Colab, .cuda(1) in the demo; the 2.0+ hint lines"),
    "在 colab 上运行项目出现这个问题，代码里 cuda 好像也没指定多个 GPU：\n"
    "RuntimeError: CUDA error: invalid device ordinal\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be \nincorrect.\n"
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")

add(ID, "prose-en", "en", thread("https://github.com/microsoft/SimXNS/issues/2", "torch.distributed.launch with more processes than GPUs"),
    "launching with --nproc_per_node=8 on a 4-GPU node:\n"
    'torch.cuda.set_device(args.local_rank)\n  File "/home/socialab/miniconda3/envs/IR_SimANS-env/lib/python3.10/site-packages/torch/cuda/__init__.py", line 314, in set_device\n'
    "    torch._C._cuda_setDevice(device)\nRuntimeError: CUDA error: invalid device ordinal")

add(ID, "prose-ko", "ko", thread("https://github.com/wenwenyu/PICK-pytorch/issues/14", "PyTorch 1.4-1.5 wording 'cuda runtime error (101)'"),
    "README대로 CUDA_VISIBLE_DEVICES=1,2에 --nproc_per_node=4로 실행했더니 이 에러가 나요.\n"
    "RuntimeError: cuda runtime error (101) : invalid device ordinal at /pytorch/torch/csrc/cuda/Module.cpp:59")

add(ID, "traceback", "en", thread_tb("https://github.com/OpenBMB/MiniCPM-V/issues/356", "rank-prefixed, raised through transformers and accelerate; last frames written by hand from 2.3"),
    '''[rank6]: Traceback (most recent call last):
[rank6]:   File "/workspace/minicpm/finetune/finetune.py", line 281, in <module>
[rank6]:     train()
[rank6]:   File "/workspace/pypacks/transformers/training_args.py", line 2108, in _setup_devices
[rank6]:     self.distributed_state = PartialState(**accelerator_state_kwargs)
[rank6]:   File "/workspace/pypacks/accelerate/state.py", line 790, in set_device
[rank6]:     torch.cuda.set_device(self.device)
[rank6]:   File "/workspace/pypacks/torch/cuda/__init__.py", line 399, in set_device
[rank6]:     torch._C._cuda_setDevice(device)
[rank6]: RuntimeError: CUDA error: invalid device ordinal
[rank6]: CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
[rank6]: For debugging consider passing CUDA_LAUNCH_BLOCKING=1
[rank6]: Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.''')

add(ID, "truncated", "en", thread("https://github.com/ZhaoJ9014/face.evoLVe/issues/58", "PyTorch 1.0 wording 'CUDA error (10)'"),
    "    temp_x = x.cuda(self.device_id[i])\nRuntimeError: CUDA error (10): invalid device ordinal")


# --- pytorch/cuda-fork-reinit ---------------------------------------------------------------------
ID = "pytorch/cuda-fork-reinit"

add(ID, "line", "en", thread("https://github.com/facebookresearch/pycls/issues/183"),
    "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method")

add(ID, "traceback", "en", known_gpu("1.13-2.x", "a hard one: CUDA touched inside Dataset.__getitem__, reported through the DataLoader worker wrapper"),
    '''Traceback (most recent call last):
  File "/workspace/det/train.py", line 121, in <module>
    for imgs, targets in loader:
  File "/opt/conda/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 630, in __next__
    data = self._next_data()
  File "/opt/conda/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 1345, in _next_data
    return self._process_data(data)
  File "/opt/conda/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 1371, in _process_data
    data.reraise()
  File "/opt/conda/lib/python3.10/site-packages/torch/_utils.py", line 694, in reraise
    raise exception
RuntimeError: Caught RuntimeError in DataLoader worker process 0.
Original Traceback (most recent call last):
  File "/opt/conda/lib/python3.10/site-packages/torch/utils/data/_utils/worker.py", line 308, in _worker_loop
    data = fetcher.fetch(index)
  File "/workspace/det/data.py", line 57, in __getitem__
    img = torch.from_numpy(arr).cuda()
  File "/opt/conda/lib/python3.10/site-packages/torch/cuda/__init__.py", line 284, in _lazy_init
    raise RuntimeError(
RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method''')

add(ID, "prose-zh", "zh", thread("https://github.com/IDEA-CCNL/Fengshenbang-LM/issues/259", "set_start_method called after CUDA was already used"),
    "在 linux 上部署，已经加了 set_start_method('spawn', force=True)，日志里 get_start_method 也显示是 spawn，"
    "但还是报 Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method，本地 CPU 可以正常运行。")

add(ID, "prose-en", "en", thread("https://github.com/flairNLP/flair/issues/1316", "already tried mp.set_start_method('spawn', True)"),
    "flair model inside a multiprocessing.Pool on GPU:\nRuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method\n"
    "I wrapped mp.set_start_method('spawn', True) in a try/except, nothing changes")

add(ID, "prose-ko", "ko", thread("https://github.com/Quantum-Cheese/DeepReinforcementLearning_Pytorch/issues/3", "A3C workers with a shared model on the GPU"),
    "A3C 예제를 GPU로 돌리면 워커 프로세스에서 이렇게 나와요. CPU로만 돌리면 다른 문제가 있고요.\n"
    "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method")

add(ID, "truncated", "en", thread("https://github.com/IDEA-Research/GroundingDINO/issues/276", "as pasted, with the escaped quotes"),
    "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the \\'spawn\\' start method")

add(ID, "traceback", "en", thread("https://github.com/vllm-project/vllm/issues/8893", "message from the thread; vLLM worker frames written by hand (raised through vLLM, a hard one)"),
    "(VllmWorkerProcess pid=4127) ERROR 09-27 10:12:31 multiproc_worker_utils.py:233] Exception in worker VllmWorkerProcess while processing method init_device.\n"
    + prefixed(traceback([
        ("/usr/local/lib/python3.10/dist-packages/vllm/worker/worker.py", 166, "init_device", "torch.cuda.set_device(self.device)"),
        ("/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py", 420, "set_device", "torch._C._cuda_setDevice(device)"),
        ("/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py", 300, "_lazy_init", "raise RuntimeError("),
    ], "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method"),
        "(VllmWorkerProcess pid=4127) ERROR 09-27 10:12:31 multiproc_worker_utils.py:233] "))


# --- pytorch/cuda-devices-busy -------------------------------------------------------------------
ID = "pytorch/cuda-devices-busy"

add(ID, "traceback", "en", thread_tb("https://github.com/facebookresearch/detectron2/issues/2580", "raised through detectron2, torch 1.6-era frames; message from the issue title"),
    '''Traceback (most recent call last):
  File "demo/demo.py", line 82, in <module>
    demo = VisualizationDemo(cfg)
  File "/home/ubuntu/detectron2/demo/predictor.py", line 35, in __init__
    self.predictor = DefaultPredictor(cfg)
  File "/home/ubuntu/detectron2/detectron2/engine/defaults.py", line 188, in __init__
    self.model = build_model(self.cfg)
  File "/home/ubuntu/detectron2/detectron2/modeling/meta_arch/build.py", line 22, in build_model
    model.to(torch.device(cfg.MODEL.DEVICE))
  File "/home/ubuntu/anaconda3/lib/python3.8/site-packages/torch/nn/modules/module.py", line 612, in to
    return self._apply(convert)
  File "/home/ubuntu/anaconda3/lib/python3.8/site-packages/torch/nn/modules/module.py", line 381, in _apply
    param_applied = fn(param)
RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable''')

add(ID, "traceback", "en", thread_tb("https://github.com/pytorch/pytorch/issues/100691", "the newer CUDA wording 'device(s) is/are busy'; two Tesla T4, the script printed True/cuda:0 first"),
    '''True
cuda:0
cuda:1
Tesla T4
Tesla T4
Traceback (most recent call last):
  File "/data/check.py", line 17, in <module>
    print(torch.rand(3,3).cuda())
RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1.
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.''')

add(ID, "prose-en", "en", thread("https://github.com/microsoft/Bringing-Old-Photos-Back-to-Life/issues/28", "a vGPU (GRID T4-8Q) in a KVM guest"),
    "driver 440.118 and cuda 10.2 installed, nvidia-smi shows the GRID T4-8Q with 592MiB used and no processes, still:\n"
    "RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable")

add(ID, "prose-ko", "ko", thread("https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/2986", "Windows 10, A5000"),
    "A5000 달린 윈도우 10 머신에 Stable Diffusion을 설치했는데 실행하면 바로 이 에러가 나요. CUDA 11.3이랑 VC 재배포 패키지는 깔았어요.\n"
    "RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable")

add(ID, "prose-zh", "zh", thread("https://github.com/huangyangyi/TeCH/issues/8", "a GPU set to exclusive-process compute mode on a shared server"),
    "在装了 ada6000 的服务器上按安装脚本装好环境，一跑就报 RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable，同一环境下别的代码可以正常用 GPU。")

add(ID, "truncated", "en", thread_tb("https://github.com/pytorch/pytorch/issues/2704", "PyTorch 0.2 wording 'cuda runtime error (46)', cut after the THC line"),
    '''THCudaCheck FAIL file=/opt/conda/conda-bld/pytorch_1502004572321/work/torch/lib/THC/generic/THCStorage.cu line=66 error=46 : all CUDA-capable devices are busy or unavailable
Traceback (most recent call last):
  File "scripts/reader/train.py", line 544, in <module>
    main(args)''')

add(ID, "line", "en", thread("https://github.com/xingyizhou/CenterNet/issues/759", "PyTorch 1.0 caching-allocator wording, as typed in the issue"),
    "RuntimeError: cuda error: all cuda-capable devices are busy or unavailable(malloc at /opt/conda/conda-bld/pytorch_1544199946412/work/aten/src/THC/THCCachingALLocator.cpp:233)")


# --- pytorch/cuda-launch-failure ------------------------------------------------------------------
ID = "pytorch/cuda-launch-failure"

add(ID, "traceback", "en", thread_tb("https://github.com/facebookresearch/DeepSDF/issues/40", "PyTorch 1.0: the Python error followed by the c10::Error abort, trimmed"),
    '''Traceback (most recent call last):
  File "train_deep_sdf.py", line 591, in <module>
    main_function(args.experiment_directory, args.continue_from, int(args.batch_split))
  File "train_deep_sdf.py", line 501, in main_function
    chunk_loss = loss_l1(pred_sdf, sdf_gt[i].cuda()) / num_sdf_samples
RuntimeError: CUDA error: unspecified launch failure
terminate called after throwing an instance of 'c10::Error'
  what():  CUDA error: unspecified launch failure (insert_events at /opt/conda/conda-bld/pytorch_1544202130060/work/aten/src/THC/THCCachingAllocator.cpp:470)
frame #0: c10::Error::Error(c10::SourceLocation, std::string const&) + 0x45 (0x7f16bc43ecc5 in /home/cuili/anaconda3/lib/python3.7/site-packages/torch/lib/libc10.so)
frame #1: <unknown function> + 0x135cb20 (0x7f16bff31b20 in /home/cuili/anaconda3/lib/python3.7/site-packages/torch/lib/libcaffe2_gpu.so)''')

add(ID, "prose-zh", "zh", thread("https://github.com/zhmou/Turbofan-engine-RUL-prediction/issues/4"),
    "训练时在 running_loss += loss.item() 这一行报错，这是怎么回事：\n"
    "RuntimeError: CUDA error: unspecified launch failure\nCUDA kernel errors might be asynchronously reported at some other API call,so the stacktrace below might be incorrect.\n"
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.")

add(ID, "prose-en", "en", thread("https://github.com/XPixelGroup/BasicSR/issues/211", "after 10k iterations; the logger line before it"),
    "ESRGAN training dies after ~10k iterations, every model variant:\n"
    "19-08-22 10:12:46.002 - INFO: <epoch:  5, iter:  10,100, lr:1.992e-04> l_pix: 1.8082e-02\n"
    '  File "/home/ubuntu/Desktop/DLSRSingleImage/ESRGAN/BasicSR/codes/models/SR_model.py", line 119, in optimize_parameters\n'
    "    self.log_dict['l_pix'] = l_pix.item()\nRuntimeError: CUDA error: unspecified launch failure")

add(ID, "prose-ko", "ko", thread("https://github.com/opendatalab/MinerU/issues/426", "the card turned out to be faulty"),
    "이 에러가 난 뒤로는 서버를 재부팅해야 GPU를 다시 쓸 수 있어요. 메모리는 11GB고 기본 설정으로만 돌렸어요.\n"
    "RuntimeError: CUDA error: unspecified launch failure")

add(ID, "line", "en", known_gpu("1.x-2.x", "the misaligned-address sibling of the class"),
    "RuntimeError: CUDA error: misaligned address\n" + SYNC_HINT_24)

add(ID, "truncated", "en", thread("https://github.com/pytorch/pytorch/issues/2567", "PyTorch 0.2 wording 'cuda runtime error (4)'"),
    '''  File "/home/ubuntu/anaconda3/lib/python3.6/site-packages/torch/_utils.py", line 66, in _cuda
    return new_type(self.size()).copy_(self, async)
RuntimeError: cuda runtime error (4) : unspecified launch failure at /home/ubuntu/pytorch/torch/lib/THC/THCTensorCopy.cu:85''')

add(ID, "traceback", "en", thread_tb("https://github.com/OpenRLHF/OpenRLHF/issues/829", "raised inside transformers' Qwen2 layers, 2.5-era frames; trimmed, message from the issue title"),
    '''  File "/root/venv/lib/python3.11/site-packages/transformers/models/qwen2/modeling_qwen2.py", line 577, in forward
    layer_outputs = decoder_layer(
                    ^^^^^^^^^^^^^^
  File "/root/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1736, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1844, in _call_impl
    return inner()
           ^^^^^^^
RuntimeError: CUDA error: unspecified launch failure
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.''')


# --- pytorch/flash-attention-unavailable -----------------------------------------------------------
ID = "pytorch/flash-attention-unavailable"

add(ID, "traceback", "en", thread_tb("https://github.com/facebookresearch/sam2/issues/48", "Windows path, torch 2.3.1+cu121; only the last frame was pasted"),
    '''segment-anything-2\\sam2\\modeling\\sam\\transformer.py", line 255, in forward
    out = F.scaled_dot_product_attention(q, k, v, dropout_p=dropout_p)
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
RuntimeError: No available kernel. Aborting execution.''')

add(ID, "traceback", "en", thread_tb("https://github.com/lucidrains/denoising-diffusion-pytorch/issues/239", "the SDPA UserWarning that says why, then the error"),
    '''pytorch/denoising_diffusion_pytorch/attend.py:77: UserWarning: Expected query, key and value to all be of dtype: {Half, BFloat16}. Got Query dtype: float, Key dtype: float, and Value dtype: float instead. (Triggered internally at ../aten/src/ATen/native/transformers/cuda/sdp_utils.h:92.)
  out = F.scaled_dot_product_attention(

pytorch/denoising_diffusion_pytorch/attend.py", line 78, in flash_attn
    out = F.scaled_dot_product_attention(
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
RuntimeError: No available kernel.  Aborting execution.''')

add(ID, "prose-en", "en", thread("https://github.com/lucidrains/x-transformers/issues/143", "three V100s (no flash attention before Ampere), torch 2.0.1"),
    "falcontune on 3x Tesla V100-SXM2-32GB, torch 2.0.1+cu118:\n"
    '''File "/home/users/user/falcontune/venv_falcontune/lib/python3.8/site-packages/falcontune-0.1.0-py3.8.egg/falcontune/model/falcon/model.py", line 527, in forward
    attn_output = F.scaled_dot_product_attention(
RuntimeError: No available kernel.  Aborting execution.''')

add(ID, "prose-zh", "zh", thread("https://github.com/bytedance/LatentSync/issues/161", "Ubuntu 20.04, CUDA 11.7, a cloud GPU without FlashAttention-2 support"),
    "看到更新说用 PyTorch 原生的 FlashAttention-2 替换了 xFormers，但是我跑的时候报错：\n"
    '  File "/workspace/LatentSync/latentsync/models/attention.py", line 273, in forward\n'
    "    hidden_states = F.scaled_dot_product_attention(query, key, value, attn_mask=attention_mask)\nRuntimeError: No available kernel. Aborting execution.")

add(ID, "prose-ko", "ko", known_gpu("2.1-2.x", "the flash-attn package on a Turing card (RTX 2080 Ti); a hard one, raised by flash_attn, not torch"),
    "RTX 2080 Ti에서 attn_implementation=\"flash_attention_2\"로 모델을 불러오면 첫 forward에서 이렇게 죽어요.\n"
    "RuntimeError: FlashAttention only supports Ampere GPUs or newer.")

add(ID, "line", "en", ran("the CPU wording of 2.13 when a CUDA-only SDPA backend is forced"),
    line("sdpa_no_backend"))

add(ID, "truncated", "en", thread("https://github.com/kyegomez/Andromeda/issues/9", "Colab A100 log with the SDPA warnings, cut"),
    '''A100 GPU detected, using flash attention if input tensor is on cuda
/content/Andromeda/Andromeda/optimus_prime/attend.py:168: UserWarning: Memory efficient kernel not used because: (Triggered internally at ../aten/src/ATen/native/transformers/cuda/sdp_utils.h:545.)
  out = F.scaled_dot_product_attention(
/content/Andromeda/Andromeda/optimus_prime/attend.py:168: UserWarning: Memory Efficient attention has been runtime disa''')


# --- pytorch/mps-not-implemented ------------------------------------------------------------------
ID = "pytorch/mps-not-implemented"

MPS_TAIL = ("If you want this op to be added in priority during the prototype phase of this feature, please comment on "
            "https://github.com/pytorch/pytorch/issues/77764. As a temporary fix, you can set the environment variable "
            "`PYTORCH_ENABLE_MPS_FALLBACK=1` to use the CPU as a fallback for this op. WARNING: this will be slower than running natively on MPS.")

add(ID, "line", "en", thread("https://github.com/pytorch/pytorch/issues/77764", "a comment in the MPS coverage issue"),
    "NotImplementedError: The operator 'aten::upsample_bicubic2d.out' is not currently implemented for the MPS device.")

add(ID, "prose-en", "en", thread("https://github.com/invoke-ai/InvokeAI/pull/232", "the 1.12 wording ('not current implemented')"),
    "M1 mac, image generation stops with\n```\nNotImplementedError: The operator 'aten::_index_put_impl_' is not current implemented for the MPS device. " + MPS_TAIL + "\n```")

add(ID, "prose-ko", "ko", thread("https://github.com/pytorch/pytorch/issues/77754", "a hard one: a torchvision operator on MPS is still this class, not a missing torchvision build"),
    "M1 맥북에서 torch 2.2.1 + torchvision 0.17.1로 검출 모델을 돌리면 NMS에서 이렇게 나와요.\n"
    "NotImplementedError: The operator 'torchvision::nms' is not currently implemented for the MPS device. " + MPS_TAIL)

add(ID, "prose-zh", "zh", thread("https://github.com/pytorch/pytorch/issues/77764", "another comment in the same issue"),
    "在 Mac 上用 mps 跑 transformers 的生成，报：\n"
    "NotImplementedError: The operator 'aten::isin.Tensor_Tensor_out' is not currently implemented for the MPS device.")

add(ID, "traceback", "en", known("2.x (macOS, MPS)", "the float64 message of the class, Jupyter layout"),
    """---------------------------------------------------------------------------
TypeError                                 Traceback (most recent call last)
Cell In[4], line 3
      1 device = torch.device("mps")
      2 X = torch.from_numpy(df[features].values)
----> 3 X = X.to(device)

TypeError: Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support float64. Please use float32 instead.""")

add(ID, "truncated", "en", thread("https://github.com/pytorch/pytorch/issues/77764", "the op name only, cut"),
    "NotImplementedError: The operator 'aten::index_copy.out' is not currently implemented for the MPS device. If you want this op to be added in priority during the prototype phase of this feature, please comment on https://github.com/pytorch/pytorch/iss")

add(ID, "traceback", "en", known("2.1-2.x (macOS, MPS)", "raised through Lightning's MPS accelerator, trimmed; situation as in https://github.com/pytorch/pytorch/issues/77754"),
    traceback([
        ("/Users/kim/forecast/train.py", 54, "<module>", "nf.fit(df=train_df)"),
        ("/Users/kim/miniforge3/envs/ts/lib/python3.11/site-packages/pytorch_lightning/trainer/trainer.py", 544, "fit", "call._call_and_handle_interrupt("),
        ("/Users/kim/miniforge3/envs/ts/lib/python3.11/site-packages/neuralforecast/models/nhits.py", 176, "forward", "knots = F.interpolate(knots, size=self.h, mode=self.interpolation_mode)"),
        ("/Users/kim/miniforge3/envs/ts/lib/python3.11/site-packages/torch/nn/functional.py", 4072, "interpolate", "return torch._C._nn.upsample_linear1d(input, output_size, align_corners, scale_factors)"),
    ], "NotImplementedError: The operator 'aten::upsample_linear1d.out' is not currently implemented for the MPS device. " + MPS_TAIL))


# --- pytorch/windows-dll-load -------------------------------------------------------------------
ID = "pytorch/windows-dll-load"

add(ID, "traceback", "en", thread_tb("https://github.com/pytorch/pytorch/issues/131662", "Jupyter layout with the JSON-escaped backslashes as pasted; torch 2.4.0"),
    r'''OSError                                   Traceback (most recent call last)
Cell In[4], line 1
----> 1 import torch

File c:\\Users\\Noor\\anaconda3\\envs\\DL\\Lib\\site-packages\\torch\\__init__.py:148
    146                 err = ctypes.WinError(ctypes.get_last_error())
    147                 err.strerror += f' Error loading \"{dll}\" or one of its dependencies.'
--> 148                 raise err

OSError: [WinError 126] The specified module could not be found. Error loading \"c:\\Users\\Noor\\anaconda3\\envs\\DL\\Lib\\site-packages\\torch\\lib\\fbgemm.dll\" or one of its dependencies.''')

add(ID, "traceback", "en", thread_tb("https://github.com/zai-org/ChatGLM3/issues/69", "Chinese Windows, the cuDNN DLL"),
    r'''PS J:\ChatGLM3-main> python web_demo.py
Traceback (most recent call last):
  File "J:\ChatGLM3-main\web_demo.py", line 4, in <module>
    from utils import load_model_on_gpus
  File "J:\ChatGLM3-main\utils.py", line 4, in <module>
    from torch.nn import Module
  File "D:\python\lib\site-packages\torch\__init__.py", line 139, in <module>
    raise err
OSError: [WinError 126] 找不到指定的模块。 Error loading "D:\python\lib\site-packages\torch\lib\cudnn_cnn_infer64_8.dll" or one of its dependencies.''')

add(ID, "prose-en", "en", thread("https://github.com/huggingface/diffusers/issues/5247", "French Windows"),
    "stable diffusion webui won't start anymore:\n"
    "OSError: [WinError 126] Le module spécifié est introuvable. Error loading \"C:\\ai\\stable-diffusion-webui\\venv\\lib\\site-packages\\torch\\lib\\c10.dll\" or one of its dependencies.\n"
    "Appuyez sur une touche pour continuer...")

add(ID, "prose-zh", "zh", thread("https://github.com/xszyou/Fay/issues/130"),
    "所有依赖都装好了，配置也改了，一启动 main.py 就报：\n"
    "OSError: [WinError 126] 找不到指定的模块。 Error loading \"D:\\environment\\pythton310\\lib\\site-packages\\torch\\lib\\fbgemm.dll\" or one of its dependencies.")

add(ID, "prose-ko", "ko", thread("https://github.com/oobabooga/textgen/issues/3104", "the DLL is present but a dependency is not"),
    "새로 설치했는데 실행하면 이 에러가 나요. caffe2_nvrtc.dll 파일은 그 폴더에 분명히 있어요.\n"
    "OSError: [WinError 126] The specified module could not be found. Error loading \"C:\\Users\\User\\AppData\\Local\\Programs\\Python\\Python310\\lib\\site-packages\\torch\\lib\\caffe2_nvrtc.dll\" or one of its dependencies.")

add(ID, "truncated", "en", thread("https://github.com/RetroUpgrade-YouTube/Hi3DGen_1Click_installer/issues/3", "a one-click installer's venv"),
    '''  File "C:\\Hi3DGen_1Click_v04-Triton\\code\\venv\\lib\\site-packages\\torch\\__init__.py", line 148, in <module>
    raise err
OSError: [WinError 126] The specified module could not be found. Error loading "C:\\Hi3DGen_1Click_v04-Triton\\code\\venv\\lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.
Something went wrong, consider removing code/torch_installed.txt and venv folder to re-initialize from scratch''')

add(ID, "line", "en", known("1.x-2.x (Windows)", "the WinError 1114 variant of the class"),
    "OSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed. Error loading \"C:\\Users\\minji\\anaconda3\\envs\\torch\\lib\\site-packages\\torch\\lib\\c10.dll\" or one of its dependencies.")


# --- pytorch/undefined-symbol ---------------------------------------------------------------------
ID = "pytorch/undefined-symbol"

add(ID, "traceback", "en", thread_tb("https://github.com/Layne-Huang/PMDM/issues/5", "torch built for a newer CUDA runtime than the one on the library path"),
    '''Traceback (most recent call last):
  File "/media/data/software/conda/PMDM-main/sample_for_pdb.py", line 10, in <module>
    from evaluation import *
  File "/media/data/software/conda/PMDM-main/evaluation/evaluation_metrics.py", line 7, in <module>
    import torch
  File "/home/anaconda3/envs/mol/lib/python3.9/site-packages/torch/__init__.py", line 235, in <module>
    from torch._C import *  # noqa: F403
ImportError: /home/anaconda3/envs/mol/lib/python3.9/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: cudaLaunchKernelExC, version libcudart.so.11.0''')

add(ID, "line", "en", thread("https://github.com/lxxue/FRNN/issues/21", "a CUDA extension built against another torch; paths anonymised by the poster"),
    "ImportError: /*/*/*/*/FRNN/frnn/_C.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c1015SmallVectorBaseIjE8grow_podEPKvmm")

add(ID, "prose-en", "en", thread("https://github.com/Zielon/MICA/issues/20", "a pytorch3d wheel for another torch version, Colab"),
    "after pip installing pytorch3d on colab, importing it fails:\n"
    "ImportError: /usr/local/lib/python3.7/dist-packages/pytorch3d/_C.cpython-37m-x86_64-linux-gnu.so: undefined symbol: _ZNK2at6Tensor7is_cudaEv")

add(ID, "prose-ko", "ko", thread("https://github.com/facebookresearch/goliath/issues/23", "system CUDA vs the venv's torch CUDA"),
    "다른 프로젝트에서 sgutils 확장을 가져다 쓰니까 import에서 바로 이렇게 나와요.\n"
    "ImportError: /home/guoyang/GMS/gaussian-mesh-splatting/extensions/sgutils/sgutilslib.cpython-38-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi")

add(ID, "prose-zh", "zh", thread("https://github.com/pytorch/pytorch/issues/15800", "torch 1.0 with a stale libc10 in /usr/local/lib"),
    "import torch 就报错，caffe2 也能 import 但是没有版本号：\n"
    "ImportError: ~/.local/lib/python3.6/site-packages/torch/lib/libcaffe2.so: undefined symbol: _ZTIN3c1010TensorImplE")

add(ID, "traceback", "en", thread_tb("https://github.com/facebookresearch/deepconf/issues/4", "a hard one: raised by vLLM's compiled ops built for another torch; 3.12 carets"),
    '''INFO 09-08 17:04:55 [__init__.py:241] Automatically detected platform cuda.
Traceback (most recent call last):
  File "/home/projects/deepconf/deepconf/deepconf-baseline.py", line 7, in <module>
    from vllm import LLM, SamplingParams
  File "/home/projects/deepconf/vllm/vllm/__init__.py", line 64, in __getattr__
    module = import_module(module_name, __package__)
             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
ImportError: /home/projects/deepconf/vllm/vllm/_C.abi3.so: undefined symbol: _ZN3c104cuda9SetDeviceEa''')

add(ID, "truncated", "en", thread("https://github.com/16lemoing/dot/issues/20", "cut inside the mangled name"),
    "ImportError: /opt/conda/envs/dot/lib/python3.9/site-packages/_torch3d/_C.cpython-39-x86_64-linux-gnu.so: undefined symbol: _ZN3c106detail14torchCheckFailEPKcS2_jRKNSt7__cxx1112basic_str")

add(ID, "traceback", "en", thread_tb("https://github.com/pytorch/pytorch/issues/10234", "PyTorch 0.4 built from source over an old install, python 2.7"),
    '''  File "<stdin>", line 1, in <module>
  File "/home/luhongchao/anaconda2/lib/python2.7/site-packages/torch/__init__.py", line 84, in <module>
    from torch._C import *
ImportError: anaconda2/lib/python2.7/site-packages/torch/lib/libtorch.so.1: undefined symbol: _ZTIN2at4TypeE''')


# --- pytorch/torchvision-operator-missing ---------------------------------------------------------
ID = "pytorch/torchvision-operator-missing"

add(ID, "traceback", "en", thread_tb("https://github.com/fudan-generative-vision/hallo/issues/98", "Colab, torch 2.3-era frames"),
    '''Traceback (most recent call last):
  File "/content/hallo/scripts/inference.py", line 40, in <module>
    from hallo.datasets.audio_processor import AudioProcessor
  File "/usr/local/lib/python3.10/dist-packages/torchvision/__init__.py", line 6, in <module>
    from torchvision import _meta_registrations, datasets, io, models, ops, transforms, utils
  File "/usr/local/lib/python3.10/dist-packages/torchvision/_meta_registrations.py", line 164, in <module>
    def meta_nms(dets, scores, iou_threshold):
  File "/usr/local/lib/python3.10/dist-packages/torch/library.py", line 467, in inner
    handle = entry.abstract_impl.register(func_to_register, source)
  File "/usr/local/lib/python3.10/dist-packages/torch/_library/abstract_impl.py", line 30, in register
    if torch._C._dispatch_has_kernel_for_dispatch_key(self.qualname, "Meta"):
RuntimeError: operator torchvision::nms does not exist''')

add(ID, "traceback", "en", thread_tb("https://github.com/apple-aiml-research/ml-depth-pro/issues/62", "torch 2.5-era frames (_register_fake), miniconda; cut at the last frame, message from the title"),
    '''Traceback (most recent call last):
  File "/home/saith/miniconda3/envs/depth-pro/bin/depth-pro-run", line 5, in <module>
    from depth_pro.cli import run_main
  File "/home/saith/Desktop/data/ml-depth-pro/src/depth_pro/depth_pro.py", line 12, in <module>
    from torchvision.transforms import (
  File "/home/saith/miniconda3/envs/depth-pro/lib/python3.9/site-packages/torchvision/__init__.py", line 10, in <module>
    from torchvision import _meta_registrations, datasets, io, models, ops, transforms, utils  # usort:skip
  File "/home/saith/miniconda3/envs/depth-pro/lib/python3.9/site-packages/torchvision/_meta_registrations.py", line 164, in <module>
    def meta_nms(dets, scores, iou_threshold):
  File "/home/saith/miniconda3/envs/depth-pro/lib/python3.9/site-packages/torch/library.py", line 795, in register
    use_lib._register_fake(op_name, func, _stacklevel=stacklevel + 1)
  File "/home/saith/miniconda3/envs/depth-pro/lib/python3.9/site-packages/torch/library.py", line 184, in _register_fake
    handle = entry.fake_impl.register(func_to_register, source)
RuntimeError: operator torchvision::nms does not exist''')

add(ID, "line", "en", thread("https://github.com/naver/dust3r/issues/246"), "RuntimeError: operator torchvision::nms does not exist")

add(ID, "prose-en", "en", thread("https://github.com/pytorch/pytorch/issues/122494", "torch 2.2.1+cpu with a CUDA torchvision wheel"),
    "pip installed torch 2.2.1+cpu and then torchvision from the default index, now `import torchvision` gives\n"
    "RuntimeError: operator torchvision::nms does not exist")

add(ID, "prose-ko", "ko", thread("https://github.com/ZQPei/deep_sort_pytorch/issues/189", "the 1.x wording 'No such operator'"),
    "deep_sort를 돌리면 검출 단계에서 이 에러가 나요. torch랑 torchvision은 pip로 따로 깔았어요.\nRuntimeError: No such operator torchvision::nms")

add(ID, "prose-zh", "zh", thread("https://github.com/Tencent-Hunyuan/HunyuanVideo/issues/287"),
    "按照网上的步骤一步步装的环境，一运行就报 RuntimeError: operator torchvision::nms does not exist，torch 和 torchvision 是分开装的。")

add(ID, "truncated", "en", thread_tb("https://github.com/vladmandic/sdnext/issues/3531", "Windows rich box, raised on import through sdnext modules; cut before the message"),
    """│ C:\\Users\\jfran\\Documents\\Artificial Intelligence\\automatic\\modules\\shared.py:25 in <module>                          │
│                                                                                                                      │
│     24 from modules.ui_components import DropdownEditable                                                            │
│ ❱   25 import modules.interrogate                                                                                    │
╰──────────────────────────────────────────────────────────────────────────────────────────────────────────────────────╯
RuntimeError: operator torchvision::nms does not exist""")


# --- pytorch/numpy2-abi ---------------------------------------------------------------------------
ID = "pytorch/numpy2-abi"

NP2 = """A module that was compiled using NumPy 1.x cannot be run in
NumPy 2.0.0 as it may crash. To support both 1.x and 2.x
versions of NumPy, modules must be compiled with NumPy 2.0.
Some module may need to rebuild instead e.g. with 'pybind11>=2.12'.

If you are a user of the module, the easiest solution will be to
downgrade to 'numpy<2' or try to upgrade the affected module.
We expect that some modules will need time to support NumPy 2."""

add(ID, "traceback", "en", thread_tb("https://github.com/xai4space/meteors/issues/20", "Windows build (backslash path in the warning), torch < 2.3"),
    ">>> import torch\n>>> sample = torch.tensor([[0]])\n\n" + NP2 + "\n\n"
    "Traceback (most recent call last):  File \"<stdin>\", line 1, in <module>\n"
    "<stdin>:1: UserWarning: Failed to initialize NumPy: _ARRAY_API not found (Triggered internally at ..\\torch\\csrc\\utils\\tensor_numpy.cpp:84.)")

add(ID, "traceback", "en", thread_tb("https://github.com/donahowe/AutoStudio/issues/38", "import torch in a venv with NumPy 2.0.1; trimmed"),
    NP2.replace("2.0.0", "2.0.1") + '''

Traceback (most recent call last):  File "/home/parsa/HDD/machine learning/AutoStudio/run.py", line 19, in <module>
    import torch
  File "/home/parsa/HDD/machine learning/AutoStudio/lib/python3.10/site-packages/torch/__init__.py", line 1382, in <module>
    from .functional import *  # noqa: F403
  File "/home/parsa/HDD/machine learning/AutoStudio/lib/python3.10/site-packages/torch/functional.py", line 7, in <module>
    import torch.nn.functional as F''')

add(ID, "prose-en", "en", thread("https://github.com/pawansharmaaaa/Lip_Wise/issues/20", "the RuntimeError that follows the warning"),
    "the app prints the big numpy 1.x/2.0.0 warning on start and then inference dies with\n"
    "RuntimeError: Numpy is not available\nPress any key to continue . . .")

add(ID, "prose-zh", "zh", thread("https://github.com/sniklaus/pytorch-unflow/issues/17", "Windows miniconda, NumPy 2.0.1"),
    "运行 run.py 一开始就出现这个提示，后面 tensor 转 numpy 的地方报 Numpy is not available：\n" + NP2.replace("2.0.0", "2.0.1"))

add(ID, "prose-ko", "ko", known("2.0-2.2", "the line torch prints from tensor_numpy.cpp, Linux path"),
    "pip로 다른 패키지를 설치하다가 numpy가 2.x로 올라간 뒤부터 import torch 할 때 경고가 뜨고 .numpy()가 안 돼요.\n"
    "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/transformer.py:20: UserWarning: Failed to initialize NumPy: _ARRAY_API not found "
    "(Triggered internally at /opt/conda/conda-bld/pytorch_1708025847130/work/torch/csrc/utils/tensor_numpy.cpp:84.)\n"
    "  device: torch.device = torch.device(torch._C._get_default_device()),  # torch.device('cpu'),")

add(ID, "line", "en", known("1.x-2.2"), "RuntimeError: Numpy is not available")

add(ID, "truncated", "en", thread("https://github.com/nagadomi/nunif/issues/135", "Windows embedded Python; only the head of the warning and the first frames kept"),
    "\n".join(NP2.splitlines()[:3]) + "\n...\n"
    + r'''Traceback (most recent call last):  File "runpy.py", line 187, in _run_module_as_main
  File "J:\iw3\nunif\nunif\transforms\std.py", line 2, in <module>
    from torchvision import transforms as T''')
