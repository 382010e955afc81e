"""PyTorch errors outside the 90 taxonomy classes: the bot must not answer them with an entry.

Each one was checked against the taxonomy's signals (and the messages a covered entry
would plausibly also cover) so that none of them belongs to a covered class. Issue 25's
torch-hub-load entry took three torch.hub lines that were here (GitHub's rate limit on
hub.load): a covered class now.
"""

from __future__ import annotations

from .negative_line import known, neg, thread

K = "neg-pytorch-uncovered"

ITEMS = [
    # torch.distributions argument validation
    neg(K, "en", thread("https://github.com/BayraktarLab/cell2location/issues/384"), r"""
training crashes after a few hundred epochs, any idea?

File ~/miniforge3/envs/cell2loc/lib/python3.10/site-packages/torch/distributions/distribution.py:77, in Distribution.__init__(self, batch_shape, event_shape, validate_args)
     75         valid = constraint.check(value)
     76         if not torch._is_all_true(valid):
---> 77             raise ValueError(
     78                 f"Expected parameter {param} "
     79                 f"({type(value).__name__} of shape {tuple(value.shape)}) "

ValueError: Expected parameter loc (Parameter of shape (21, 14456)) of distribution Normal(loc: torch.Size([21, 14456]), scale: torch.Size([21, 14456])) to satisfy the constraint Real(), but found invalid values:
Parameter containing:
"""),
    neg(K, "en", thread("https://github.com/lupinjia/LeggedGym-Ex/issues/12"), r"""
Traceback (most recent call last):
  File "/home/lds/下载/genesis_lr-main/scripts/train.py", line 38, in <module>
    train(args)
  File "/home/lds/下载/genesis_lr-main/scripts/train.py", line 31, in train
    ppo_runner.learn(num_learning_iterations=train_cfg.runner.max_iterations, init_at_random_ep_len=True)
  File "/home/lds/下载/genesis_lr-main/rsl_rl/runners/ts_runner.py", line 123, in learn
    actions = self.alg.act(obs, privileged_obs, obs_history, critic_obs)
  File "/home/lds/下载/genesis_lr-main/rsl_rl/modules/actor_critic_ts.py", line 168, in update_distribution
    self.distribution = Normal(mean, mean*0. + self.std)
  File "/home/lds/.conda/envs/gmr/lib/python3.10/site-packages/torch/distributions/normal.py", line 59, in __init__
    super().__init__(batch_shape, validate_args=validate_args)
ValueError: Expected parameter loc (Tensor of shape (4096, 12)) of distribution Normal(loc: torch.Size([4096, 12]), scale: torch.Size([4096, 12])) to satisfy the constraint Real(), but found invalid values:
"""),
    neg(K, "ko", thread("https://github.com/ChenFengYe/motion-latent-diffusion/issues/21"), r"""
VAE 학습 돌리는데 아래 에러가 나요. scale 쪽이 문제인 것 같은데 확실하지 않아서요

ValueError: Expected parameter loc (Tensor of shape (1, 64, 256)) of distribution Normal(loc: torch.Size([1, 64, 256]), scale: torch.Size([1, 64, 256])) to satisfy the constraint Real(), but found invalid values:
tensor([[[ 0.6326,  0.4567,  0.2685,  ..., -0.0168, -0.4774, -0.0232],
         [ 0.5023,  0.5330,  0.1182,  ..., -0.2443, -0.3375, -0.0431],
         ...,
         [ 0.2831,  0.4207, -0.0059,  ..., -0.5405, -0.4745, -0.3016]]],
       device='cuda:0')
"""),
    # sparse tensors
    neg(K, "en", thread("https://github.com/pytorch/pytorch/issues/98796"), r"""
Traceback (most recent call last):
  File "examples/correct_and_smooth.py", line 71, in <module>
    deg = adj_t.sum(dim=1).to(torch.float)
RuntimeError: torch.empty: Only batched sparse compressed (non-block) tensors are supported, but got size [2449029]
"""),
    neg(K, "en", thread("https://github.com/pytorch/pytorch/issues/160813"), r"""
sparse solve on a CSR matrix on CPU, is this just not there yet?

Traceback (most recent call last):
  File "/Users/jk/src/tutte.py", line 174, in <module>
    if __name__ == "__main__": main()
                               ^^^^^^
  File "/Users/jk/src/tutte.py", line 69, in main
    new_u = torch.sparse.spsolve(csr, u)
            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
NotImplementedError: Could not run 'aten::_spsolve' with arguments from the 'SparseCsrCPU' backend. This could be because the operator doesn't exist for this backend, or was omitted during the selective/custom build process (if using custom build). If you are a Facebook employee using PyTorch on mobile, please visit https://fburl.com/ptmfixes for possible resolutions. 'aten::_spsolve' is only available for these backends: [MPS, Meta, BackendSelect, ...].
"""),
    neg(K, "en", thread("https://github.com/microsoft/DirectML/issues/708"), r"""
NotImplementedError: Could not run 'aten::_sparse_coo_tensor_with_dims_and_tensors' with arguments from the 'SparsePrivateUse1' backend. This could be because the operator doesn't exist for this backend, or was omitted during the selective/custom build process (if using custom build). If you are a Facebook employee using PyTorch on mobile, please visit https://fburl.com/ptmfixes for possible resolutions. 'aten::_sparse_coo_tensor_with_dims_and_tensors' is only available for these backends: [PrivateUse1, Meta, SparseCPU, SparseMeta, BackendSelect, Python, FuncTorchDynamicLayerBackMode, Functionalize, Named, Conjugate, Negative, ZeroTensor, ADInplaceOrView, AutogradOther, AutogradCPU, AutogradCUDA, ...].
"""),
    # quantization
    neg(K, "en", thread("https://github.com/huggingface/optimum/issues/24"), r"""
static quantization of BERT, the calibration works but inference dies with

NotImplementedError: Could not run 'quantized::linear' with arguments from the 'CPU' backend. This could be because the operator doesn't exist for this backend, or was omitted during the selective/custom build process (if using custom build). If you are a Facebook employee using PyTorch on mobile, please visit https://fburl.com/ptmfixes for possible resolutions. 'quantized::linear' is only available for these backends: [QuantizedCPU, BackendSelect, Named, ADInplaceOrView, AutogradOther, AutogradCPU, AutogradCUDA, AutogradXLA, UNKNOWN_TENSOR_TYPE_ID, AutogradMLC, Tracer, Autocast, Batched, VmapMode].
"""),
    neg(K, "ko", thread("https://github.com/leimao/PyTorch-Quantization-Aware-Training/issues/6"), r"""
QAT 끝나고 jit으로 저장한 int8 모델로 evaluate 하면 바로 이게 떠요. 제가 뭘 빠뜨린 걸까요?

RuntimeError: Could not run 'aten::add_.Tensor' with arguments from the 'QuantizedCPU' backend.
"""),
    neg(K, "en", thread("https://github.com/pytorch/pytorch/issues/34583"), r"""
NotImplementedError: Could not run 'quantized::conv2d.new' with arguments from the 'CPU' backend. This could be because the operator doesn't exist for this backend, or was omitted during the selective/custom build process (if using custom build). If you are a Facebook employee using PyTorch on mobile, please visit https://fburl.com/ptmfixes for possible resolutions. 'quantized::conv2d.new' is only available for these backends: [QuantizedCPU, QuantizedCUDA, BackendSelect, Python, FuncTorchDynamicLayerBackMode, Functionalize, Named, Conjugate, Negative, ZeroTensor, ADInplaceOrView, AutogradOther, AutogradCPU, AutogradCUDA, AutogradXLA, AutogradMPS, AutogradXPU, AutogradHPU, AutogradLazy, Tracer, AutocastCPU, AutocastCUDA, FuncTorchBatched, FuncTorchVmapMode, Batched, VmapMode, FuncTorchGradWrapper, PythonTLSSnapshot, FuncTorchDynamicLayerFrontMode, PythonDispatcher].
"""),
    neg(K, "en", thread("https://github.com/pytorch/pytorch/issues/123507"), r"""
dynamic quantization on an M2 mac:

Traceback (most recent call last):
  File "/Users/sihao/Documents/errorreproducer.py", line 39, in <module>
    output = quantized_model(input_data)
             ^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/Users/sihao/.pyenv/versions/3.11.0/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1511, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/Users/sihao/Documents/errorreproducer.py", line 13, in forward
    return self.linear(x)
           ^^^^^^^^^^^^^^
RuntimeError: Didn't find engine for operation quantized::linear_prepack NoQEngine
"""),
    neg(K, "en", thread("https://github.com/facebookresearch/d2go/issues/87"), r"""
            (conv): QuantizedConv2d(1320, 264, kernel_size=(1, 1), stride=(1, 1), scale=1.1920928955078125e-07, zero_point=1)
          )
        )
RuntimeError: Could not run 'aten::thnn_conv2d_forward' with arguments from the 'QuantizedCPU' backend.
"""),
    # torch.fx symbolic tracing
    neg(K, "zh", thread("https://github.com/ModelTC/MQBench/issues/253"), r"""
模型 forward 里有 if 判断，量化前 trace 的时候直接挂了，大家怎么处理控制流的？

    raise TraceError('symbolically traced variables cannot be used as inputs to control flow')
torch.fx.proxy.TraceError: symbolically traced variables cannot be used as inputs to control flow
"""),
    neg(K, "en", thread("https://github.com/easybuilders/easybuild-easyconfigs/pull/15924"), r"""
  File "/home/casparl/.local/easybuild/software/PyTorch/1.12.0-foss-2022a-CUDA-11.7.0/lib/python3.10/site-packages/torch/fx/_symbolic_trace.py", line 878, in symbolic_trace
    graph = tracer.trace(root, concrete_args)
  File "/home/casparl/.local/easybuild/software/PyTorch/1.12.0-foss-2022a-CUDA-11.7.0/lib/python3.10/site-packages/torch/fx/_symbolic_trace.py", line 587, in trace
    self.create_node('output', 'output', (self.create_arg(fn(*args)),), {},
  File "/gpfs/scratch1/shared/casparl/PyTorch/1.12.0/pytorch/test/test_fx.py", line 3285, in f
    assert x > 1
  File "/home/casparl/.local/easybuild/software/PyTorch/1.12.0-foss-2022a-CUDA-11.7.0/lib/python3.10/site-packages/torch/fx/proxy.py", line 284, in __bool__
    return self.tracer.to_bool(self)
  File "/home/casparl/.local/easybuild/software/PyTorch/1.12.0-foss-2022a-CUDA-11.7.0/lib/python3.10/site-packages/torch/fx/proxy.py", line 160, in to_bool
    raise TraceError('symbolically traced variables cannot be used as inputs to control flow')
torch.fx.proxy.TraceError: symbolically traced variables cannot be used as inputs to control flow
"""),
    neg(K, "en", thread("https://github.com/DeepVAC/deepvac/issues/115"), r"""
prepare_fx fails on a module with an early return:

Traceback (most recent call last):
  File "mini_code.py", line 22, in <module>
    prepare_fx(torch_model, s_qconfig_dict)
  File "/opt/conda/lib/python3.8/site-packages/torch/quantization/quantize_fx.py", line 392, in prepare_fx
    return _prepare_fx(model, qconfig_dict, prepare_custom_config_dict)
  File "/opt/conda/lib/python3.8/site-packages/torch/quantization/quantize_fx.py", line 174, in _prepare_fx
    graph_module = GraphModule(model, tracer.trace(model))
  File "/opt/conda/lib/python3.8/site-packages/torch/fx/symbolic_trace.py", line 571, in trace
    self.create_node('output', 'output', (self.create_arg(fn(*args)),), {},
torch.fx.proxy.TraceError: symbolically traced variables cannot be used as inputs to control flow
"""),
    # multinomial sampling
    neg(K, "en", thread("https://github.com/InternLM/InternLM/issues/459"), r"""
2023-10-31 09:21:30.723 Uncaught app exception
Traceback (most recent call last):
  File "/root/miniconda3/lib/python3.8/site-packages/streamlit/runtime/scriptrunner/script_runner.py", line 552, in _run_script
    exec(code, module.__dict__)
  File "/root/autodl-tmp/InternLM/web_demo.py", line 103, in main
    for cur_response in generate_interactive(
  File "/root/miniconda3/lib/python3.8/site-packages/torch/autograd/grad_mode.py", line 64, in generator_context
    response = gen.send(request)
  File "/root/autodl-tmp/InternLM/tools/transformers/interface.py", line 116, in generate_interactive
    next_tokens = torch.multinomial(probs, num_samples=1).squeeze(1)
RuntimeError: probability tensor contains either `inf`, `nan` or element < 0
"""),
    neg(K, "zh", thread("https://github.com/DLLXW/baby-llama2-chinese/issues/33"), r"""
推理的时候报错，打印 logits 全是 nan（fp16），是不是模型权重有问题？

Traceback (most recent call last):
  File "/home/afan/worksapce/train/baby-llama2-chinese/infer.py", line 91, in <module>
    generated_tokens = model.generate(input_tokens, num_samples, max_new_tokens, temperature=temperature, top_k=top_k)
  File "/home/afan/anaconda3/envs/baby/lib/python3.10/site-packages/torch/utils/_contextlib.py", line 115, in decorate_context
    return func(*args, **kwargs)
  File "/home/afan/worksapce/train/baby-llama2-chinese/model.py", line 341, in generate
    idx_next = torch.multinomial(probs, num_samples=1)
RuntimeError: probability tensor contains either `inf`, `nan` or element < 0
"""),
    # linear algebra
    neg(K, "en", thread("https://github.com/deepmodeling/DeePTB/issues/227"), r"""
  File "/dptb/lib/python3.10/site-packages/dptb/postprocess/elec_struc_cal.py", line 159, in get_eigs
    data = self.eigv(data)
  File "/dptb/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1190, in _call_impl
    return forward_call(*input, **kwargs)
  File "/dptb/lib/python3.10/site-packages/dptb/nn/energy.py", line 75, in forward
    chklowt = torch.linalg.cholesky(data[self.s_out_field])
torch._C._LinAlgError: linalg.cholesky: (Batch element 0): The factorization could not be completed because the input is not positive-definite (the leading minor of order 246 is not positive-definite).
"""),
    neg(K, "ko", thread("https://github.com/intel/neural-compressor/pull/1965"), r"""
GPTQ로 4bit 양자화 돌리다가 첫 레이어에서 멈췄습니다. damp 값을 올리면 되나요?

  File "/home/sdp/miniforge3/envs/pytorch-2.3.0+cpu-3.10/lib/python3.10/site-packages/neural_compressor/torch/algorithms/weight_only/gptq.py", line 813, in fasterquant
    H = torch.linalg.cholesky(H)
torch._C._LinAlgError: linalg.cholesky: The factorization could not be completed because the input is not positive-definite (the leading minor of order 1 is not positive-definite).
"""),
    neg(K, "en", thread("https://github.com/pytorch/pytorch/issues/27944"), r"""
my matrix should be positive definite but cholesky refuses it:

RuntimeError: cholesky_cpu: U(9,9) is zero, singular U.
"""),
    # spectral ops
    neg(K, "en", thread("https://github.com/alibabasglab/D2Former/issues/4"), r"""
Traceback (most recent call last):
  File "/D2Former/evaluation.py", line 102, in <module>
    evaluation(args.model_path, noisy_dir, clean_dir, args.save_tracks, args.save_dir, out_file)
  File "/D2Former/evaluation.py", line 72, in evaluation
    est_audio, length = enhance_one_track(model, noisy_path, saved_dir, 16000*8, n_fft, n_fft//4, save_tracks)
  File "/py310_audio/lib/python3.10/site-packages/torch/utils/_contextlib.py", line 115, in decorate_context
    return func(*args, **kwargs)
  File "/D2Former/evaluation.py", line 36, in enhance_one_track
    noisy_spec = torch.stft(noisy, n_fft, hop, window=torch.hamming_window(n_fft).cuda(), onesided=True)
  File "/py310_audio/lib/python3.10/site-packages/torch/functional.py", line 650, in stft
    return _VF.stft(input, n_fft, hop_length, win_length, window,  # type: ignore[attr-defined]
RuntimeError: stft requires the return_complex parameter be given for real inputs, and will further require that return_complex=True in a future PyTorch release.
"""),
    neg(K, "zh", thread("https://github.com/Xiaobin-Rong/gtcrn/pull/82"), r"""
流式推理里调用 istft 报这个，输入明明是 stft 的输出啊：
RuntimeError: stft requires a complex-valued input tensor matching the output from stft with return_complex=True.
"""),
    # torchaudio
    neg(K, "en", thread("https://github.com/Zyphra/Zonos/issues/126"), r"""
Traceback (most recent call last):
  File "Zonos\main-audio.py", line 10, in <module>
    wav, sampling_rate = torchaudio.load("assets/exampleaudio.mp3")
                         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "\AppData\Local\Programs\Python\Python312\Lib\site-packages\torchaudio\_backend\utils.py", line 204, in load
    backend = dispatcher(uri, format, backend)
              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "\AppData\Local\Programs\Python\Python312\Lib\site-packages\torchaudio\_backend\utils.py", line 116, in dispatcher
    raise RuntimeError(f"Couldn't find appropriate backend to handle uri {uri} and format {format}.")
RuntimeError: Couldn't find appropriate backend to handle uri assets/exampleaudio.mp3 and format None.
"""),
    neg(K, "ko", thread("https://github.com/FireRedTeam/FireRedTTS2/issues/19"), r"""
설치 가이드대로 했는데 프롬프트 음성 불러오는 데서 죽어요 ㅠ

RuntimeError: Couldn't find appropriate backend to handle uri /home/octopus/data/FireRedTTS2/examples/chat_prompt/zh/S1.flac and format None.
"""),
    # torch.hub downloads
    # a GPU the installed build has no kernels for
    neg(K, "en", thread("https://github.com/Turoad/CLRNet/issues/83"), r"""
/home2/valentina.miller/.local/lib/python3.8/site-packages/torch/cuda/__init__.py:104: UserWarning: 
NVIDIA GeForce RTX 3090 with CUDA capability sm_86 is not compatible with the current PyTorch installation.
The current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70.
If you want to use the NVIDIA GeForce RTX 3090 GPU with PyTorch, please check the instructions at https://pytorch.org/get-started/locally/

RuntimeError: CUDA error: no kernel image is available for execution on the device
"""),
    neg(K, "ko", thread("https://github.com/ademakdogan/nails_segmentation/issues/8"), r"""
device를 cuda:0으로 바꾸자마자 batchnorm에서 이렇게 죽습니다

  File "/home/yanhao/anaconda3/envs/nailseg/lib/python3.8/site-packages/torch/nn/modules/batchnorm.py", line 148, in forward
    self.num_batches_tracked.add_(1)  # type: ignore[has-type]
RuntimeError: CUDA error: no kernel image is available for execution on the device
"""),
    neg(K, "en", thread("https://github.com/pytorch/pytorch/issues/6515"), r"""
/home/azat/anaconda2/lib/python2.7/site-packages/torch/cuda/__init__.py:97: UserWarning:
    Found GPU0 GeForce 820M which is of cuda capability 2.1.
    PyTorch no longer supports this GPU because it is too old.
    
  warnings.warn(old_gpu_warn % (d, name, major, capability[1]))
THCudaCheck FAIL file=/pytorch/torch/lib/THC/generic/THCTensorMathPairwise.cu line=40 error=48 : no kernel image is available for execution on the device
"""),
    # optimizer.load_state_dict
    neg(K, "en", thread("https://github.com/yang-song/score_sde_pytorch/issues/63"), r"""
---------------------------------------------------------------------------
ValueError                                Traceback (most recent call last)
<ipython-input-16-1f9877511dca> in <module>
     37              model=score_model, ema=ema)
     38 
---> 39 state = restore_checkpoint(ckpt_filename, state, config.device)
     40 ema.copy_to(score_model.parameters())

/workspace/utils.py in restore_checkpoint(ckpt_dir, state, device)
     13   else:
     14     loaded_state = torch.load(ckpt_dir, map_location=device)
---> 15     state['optimizer'].load_state_dict(loaded_state['optimizer'])
     16     state['model'].load_state_dict(loaded_state['model'], strict=False)
     17     state['ema'].load_state_dict(loaded_state['ema'])

/opt/conda/lib/python3.8/site-packages/torch/optim/optimizer.py in load_state_dict(self, state_dict)
    144         saved_lens = (len(g['params']) for g in saved_groups)
    145         if any(p_len != s_len for p_len, s_len in zip(param_lens, saved_lens)):
--> 146             raise ValueError("loaded state dict contains a parameter group "
    147                              "that doesn't match the size of optimizer's group")
    148 

ValueError: loaded state dict contains a parameter group that doesn't match the size of optimizer's group
"""),
    neg(K, "zh", thread("https://github.com/mli0603/stereo-transformer/issues/58"), r"""
用作者给的预训练权重 resume 训练时报错：

Traceback (most recent call last):
  File "/media/data1/dh/CODE/stereo-transformer/main.py", line 258, in <module>
    main(args_)
  File "/media/data1/dh/CODE/stereo-transformer/main.py", line 189, in main
    optimizer.load_state_dict(checkpoint['optimizer'])
  File "/media/data1/dh/anaconda3/lib/python3.7/site-packages/torch/optim/optimizer.py", line 123, in load_state_dict
    raise ValueError("loaded state dict contains a parameter group "
ValueError: loaded state dict contains a parameter group that doesn't match the size of optimizer's group
"""),
    neg(K, "en", thread("https://github.com/kohya-ss/sd-scripts/issues/378"), r"""
killed my lora training and resumed from the last checkpoint, worked before but now:

  File "E:\kohya\venv\lib\site-packages\bitsandbytes\optim\optimizer.py", line 149, in load_state_dict
    raise ValueError(
ValueError: loaded state dict contains a parameter group that doesn't match the size of optimizer's group
"""),
    # torchtext API removals
    neg(K, "en", thread("https://github.com/pytorch/text/issues/1274"), r"""
---------------------------------------------------------------------------
ImportError                               Traceback (most recent call last)
<ipython-input-13-c35a13515335> in <module>
      6 import torchtext
      7 from torchtext.vocab import Vocab
----> 8 from torchtext.data import Field, BucketIterator, TabularDataset
      9 
     10 from torchsummary import summary

ImportError: cannot import name 'Field' from 'torchtext.data' (C:\Users\udbha\anaconda3\lib\site-packages\torchtext\data\__init__.py)
"""),
    neg(K, "ko", thread("https://github.com/PacktPublishing/Mastering-PyTorch/issues/15"), r"""
책 예제 그대로 쳤는데 torchtext에서 Field가 없다고 나옵니다. 0.6.0으로 내려도 안 되네요

TEXT = torchtext.data.Field(tokenize=get_tokenizer("basic_english"), lower=True, eos_token='<eos>', init_token='<sos>')
AttributeError: module 'torchtext.data' has no attribute 'Field'
"""),
    # fp16 overflow of a fill value (not the Half "not implemented" class)
    neg(K, "zh", thread("https://github.com/QwenLM/Qwen/issues/32"), r"""
跑 README 里的例子和 demo.py 都报这个，fp16 加载的：

File "/root/.cache/huggingface/modules/transformers_modules/Qwen/Qwen-7B-Chat/44e46a0f02169a2c4790fbcccec82cd20f4df717/qwen_generation_utils.py", line 349, in __call__
    scores[i, self.eos_token_id] = float(2**30)
RuntimeError: value cannot be converted to type at::Half without overflow
"""),
    neg(K, "en", thread("https://github.com/NVIDIA/apex/issues/1052"), r"""
File "/home/wxu/github/docre/code/models/MPR.py", line 169, in forward
    scores_mask = scores.masked_fill(~path_mask.unsqueeze(-1),-1e9)
RuntimeError: value cannot be converted to type at::Half without overflow: -1e+09
Uncaught exception. Entering post mortem debugging
Running 'cont' or 'step' will restart the program
"""),
    neg(K, "en", thread("https://github.com/facebookresearch/advprompter/issues/12"), r"""
  File "/media/yunhao/DATA1/Project2025/JailbreakLLM/code/advprompter/advprompter/llm.py", line 146, in generate_teacher_forced
    pred_full_query_seq = self.model_forward(
                          ^^^^^^^^^^^^^^^^^^^
  File "/media/yunhao/DATA1/Project2025/JailbreakLLM/code/advprompter/advprompter/llm.py", line 94, in model_forward
    pred_logits[:, :, self.disallowed_ids] = -1e10
    ~~~~~~~~~~~^^^^^^^^^^^^^^^^^^^^^^^^^^^
RuntimeError: value cannot be converted to type at::Half without overflow
"""),
    # vmap / functorch
    neg(K, "en", thread("https://github.com/pytorch/functorch/issues/1130"), r"""
why can't I slice each row from its own start offset under vmap?

def window(row, start):
    return row[start:start + 3]

out = torch.vmap(window)(batch, starts)

RuntimeError: vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over calling .item() on a Tensor, please try to rewrite what you're doing with other operations. If error is occurring somewhere inside PyTorch internals, please file a bug report.
"""),
    neg(K, "ko", thread("https://github.com/pytorch/functorch/issues/1066"), r"""
네트워크 jacobian 구하려고 vmap(jacrev(...)) 썼는데 .item()을 부른 적이 없는데도 이렇게 나옵니다. `weights = interpolation_weights.prod(-1)` 줄에서요.

RuntimeError: vmap: It looks like you're either (1) calling .item() on a Tensor or (2) attempting to use a Tensor in some data-dependent control flow or (3) encountering this error in PyTorch internals. For (1): we don't support vmap over calling .item() on a Tensor, please try to rewrite what you're doing with other operations. For (2): If you're doing some control flow instead, we don't support that yet, please shout over at https://github.com/pytorch/functorch/issues/257 . For (3): please file an issue.
"""),
    neg(K, "en", thread("https://github.com/pytorch/functorch/issues/770"), r"""
RuntimeError                              Traceback (most recent call last)
Input In [103], in <cell line: 2>()
      1 # this isn't working, something about the memory access and in place ops make it unhappy
----> 2 hij = vectorized(vmap_sm, torch.tensor(modified_lengths), -1, 1)

File ~/anaconda3/envs/gpt/lib/python3.10/site-packages/functorch/_src/vmap.py:383, in vmap.<locals>.wrapped(*args, **kwargs)
    381 try:
    382     batched_inputs = _create_batched_inputs(flat_in_dims, flat_args, vmap_level, args_spec)
--> 383     batched_outputs = func(*batched_inputs, **kwargs)
    384     return _unwrap_batched(batched_outputs, out_dims, vmap_level, batch_size, func)
    385 finally:

Input In [99], in torch_nw.sco(self, x, lengths, gap, temp)
---> 87 hij = hij[sm["L"][0],sm["L"][1]]

RuntimeError: vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over calling .item() on a Tensor, please try to rewrite what you're doing with other operations. If error is occurring somewhere inside PyTorch internals, please file a bug report.
"""),
    # profiler
    neg(K, "en", thread("https://github.com/pytorch/pytorch/issues/44881"), r"""
Version = 1.6.0
Traceback (most recent call last):
  File "test.py", line 9, in <module>
    with torch.autograd.profiler.emit_nvtx():
  File "/scratch/mattle/.conda/lib/python3.7/site-packages/torch/autograd/profiler.py", line 553, in __enter__
    False
RuntimeError: Profiler is already enabled on this thread
"""),
    # nested tensors
    neg(K, "en", thread("https://github.com/pytorch/pytorch/issues/75940"), r"""
nesting two nested tensors in a third one:

>>> inner = [torch.nested_tensor([x1, x2]), torch.nested_tensor([x3, x4])]
>>> outer = torch.nested_tensor(inner)
Traceback (most recent call last):
  File "<stdin>", line 1, in <module>
NotImplementedError: Could not run 'aten::nested_tensor' with arguments from the 'NestedTensor' backend. This could be because the operator doesn't exist for this backend, or was omitted during the selective/custom build process (if using custom build). If you are a Facebook employee using PyTorch on mobile, please visit https://fburl.com/ptmfixes for possible resolutions. 'aten::nested_tensor' is only available for these backends: [Dense, FPGA, ORT, Vulkan, Metal, Meta, Quantized, CustomRNGKeyId, MkldnnCPU, Sparse, SparseCsrCPU, SparseCsrCUDA, NestedTensor, ...].
"""),
    neg(K, "zh", thread("https://github.com/pytorch/pytorch/issues/102167"), r"""
nested tensor 调 pin_memory() 直接报内部错误，DataLoader 开了 pin_memory=True 也一样：

    RuntimeError: Internal error: NestedTensorImpl doesn't support strides. Please file an issue on https://github.com/pytorch/nestedtensor
"""),
    neg(K, "en", thread("https://github.com/pytorch/pytorch/issues/132111"), r"""
RuntimeError: Internal error: NestedTensorImpl doesn't support sizes. Please file an issue.
"""),
    # custom operator registration
    neg(K, "en", thread("https://github.com/pytorch/pytorch/issues/148148"), r"""
  File "/home/xinanlin/pytorch/test/inductor/test_auto_functionalize.py", line 1136, in test_split
    torch.library.define(
  File "/home/xinanlin/miniforge3/lib/python3.10/functools.py", line 889, in wrapper
    return dispatch(args[0].__class__)(*args, **kw)
  File "/home/xinanlin/pytorch/torch/library.py", line 531, in define
    lib.define(name + schema, alias_analysis="", tags=tags)
  File "/home/xinanlin/pytorch/torch/library.py", line 172, in define
    result = self.m.define(schema, alias_analysis, tuple(tags))
RuntimeError: Tried to register an operator (mylib::foo(Tensor(a!) x, Tensor(b!) y) -> ()) with the same name and overload name multiple times. Each overload's schema should only be registered with a single call to def(). Duplicate registration: registered at /dev/null:135. Original registration: registered at /dev/null:203
"""),
    neg(K, "ko", thread("https://github.com/iree-org/iree/issues/19303"), r"""
`from shark_turbine.aot import *` 한 줄만 실행해도 import 단계에서 죽어요

RuntimeError: Only a single TORCH_LIBRARY can be used to register the namespace turbine; please put all of your definitions in a single TORCH_LIBRARY block.  If you were trying to specify implementations, consider using TORCH_LIBRARY_IMPL (which can be duplicated).  If you really intended to define operators for a single namespace in a distributed way, you can use TORCH_LIBRARY_FRAGMENT to explicitly indicate this.  Previous registration of TORCH_LIBRARY was registered at /dev/null:86; latest registration was registered at /dev/null:86
"""),
    # DDP construction: ranks disagree about the model
    neg(K, "en", thread("https://github.com/pytorch/examples/issues/1154"), r"""
Traceback (most recent call last):
  File "/home/xxx/.local/lib/python3.9/site-packages/torch/multiprocessing/spawn.py", line 74, in _wrap
    fn(i, *args)
  File "/home/xxx/work/xxx/xxx-main/src/multigpu.py", line 102, in main
    trainer = Trainer(model, train_data, optimizer, rank, save_every)
  File "/home/xxx/work/xxx/xxx-main/src/multigpu.py", line 50, in __init__
    self.model = DDP(model, device_ids=[gpu_id])
  File "/home/xxx/.local/lib/python3.9/site-packages/torch/nn/parallel/distributed.py", line 795, in __init__
    _verify_param_shape_across_processes(self.process_group, parameters)
  File "/home/xxx/.local/lib/python3.9/site-packages/torch/distributed/utils.py", line 265, in _verify_param_shape_across_processes
    return dist._verify_params_across_processes(process_group, tensors, logger)
RuntimeError: DDP expects same model across all ranks, but Rank 0 has 2 params, while rank 1 has inconsistent 0 params.
"""),
    neg(K, "en", thread("https://github.com/liangyn22/MCUFormer/issues/2"), r"""
supernet training with torch.distributed.launch on 4 GPUs stops right after building the model:

RuntimeError: [2]: params[4] in this process with sizes [243, 256] appears not to match sizes of the same param in process 0.
number of params: 16818120
"""),
    neg(K, "zh", thread("https://github.com/sail-sg/FDM/issues/4"), r"""
torchrun 四卡训练一启动就报这个，单卡没问题：
RuntimeError: params[127] in this process with sizes [256, 256, 1, 1] appears not to match strides of the same param in process 0.
WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 91129 closing signal SIGTERM
"""),
    # FSDP flattening and sharded state dicts
    neg(K, "en", thread("https://github.com/huggingface/transformers/issues/27542"), r"""
  File "/home/aelkordy/.conda/envs/mamoth/lib/python3.9/site-packages/torch/distributed/fsdp/_init_utils.py", line 429, in _init_param_handle_from_module
    _init_param_handle_from_params(state, managed_params, fully_sharded_module)
  File "/home/aelkordy/.conda/envs/mamoth/lib/python3.9/site-packages/torch/distributed/fsdp/_init_utils.py", line 525, in _init_param_handle_from_params
    handle = FlatParamHandle(
  File "/home/aelkordy/.conda/envs/mamoth/lib/python3.9/site-packages/torch/distributed/fsdp/flat_param.py", line 366, in __init__
    self._init_flat_param(params, fully_sharded_module, use_orig_params)
  File "/home/aelkordy/.conda/envs/mamoth/lib/python3.9/site-packages/torch/distributed/fsdp/flat_param.py", line 440, in _init_flat_param
    raise ValueError(
ValueError: `FlatParameter` requires uniform `requires_grad`
"""),
    neg(K, "ko", thread("https://github.com/huggingface/peft/issues/1702"), r"""
peft 예제의 run_peft_fsdp.sh를 gemma-7b로 그대로 돌렸는데 FSDP 래핑에서 실패합니다
ValueError: Must flatten tensors with uniform requires_grad when use_orig_params=False
"""),
    neg(K, "en", thread("https://github.com/neelsjain/NEFTune/issues/2"), r"""
converted the HF llama2 checkpoint with convert_hf_to_fsdp.py, then train.py fails when loading it:
RuntimeError: ``sharded_state_dict`` can only be used when parameters are flatten and sharded.
"""),
    # torch.multinomial / generate() sampling from probabilities that hold nan or inf
    neg(K, "en", known("torch.multinomial"), r"""
sampling crashed after a few hundred steps:
RuntimeError: probability tensor contains either `inf`, `nan` or element < 0
"""),
]
