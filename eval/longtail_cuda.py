"""Long-tail pasted errors about CUDA, devices and the installation: cuBLAS status codes, device
ordinals, CUDA in forked workers, busy GPUs, launch failures, attention kernels, MPS on macOS,
Windows DLLs, undefined symbols, torchvision operators and NumPy 2 binaries.

None of these can be raised on this CPU machine: every line comes from a public thread or
from the known wording of a release, as its note says."""

from __future__ import annotations

from .longtail_common import known, known_gpu, line, ran, thread, thread_tb
from .render import BACKWARD, CALL, LINEAR, at, chained, fence, prefixed, slack_escape, sp, traceback
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
