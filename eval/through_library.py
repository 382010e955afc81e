"""Covered PyTorch errors raised under another library's frames (transformers, lightning,
accelerate, deepspeed, torchvision, ...). These must still be answered with the PyTorch
entry: they keep "this is another library's error" detection from declining real PyTorch
errors. `library` names the library whose frames surround the error."""

from __future__ import annotations

from .negative_line import thread, through

ITEMS = [
    # pytorch/cuda-oom
    through("pytorch/cuda-oom", "transformers", "zh", thread("https://github.com/zai-org/GLM-4/issues/244"), r"""
两张 4090 做 lora 微调，一开始训练就爆显存：

[rank1]: │   1858 │   │   else:                                                                             │
[rank1]: │ ❱ 1859 │   │   │   return inner_training_loop(                                                   │
[rank1]: │   1860 │   │   │   │   args=args,                                                                │
[rank1]: │   1861 │   │   │   │   resume_from_checkpoint=resume_from_checkpoint,                            │
[rank1]: │                                                                                                  │
[rank1]: │ /root/miniconda3/envs/chatglm4/lib/python3.10/site-packages/transformers/trainer.py:2203 in      │
[rank1]: │ _inner_training_loop                                                                             │
[rank1]: OutOfMemoryError: CUDA out of memory. Tried to allocate 214.00 MiB. GPU
"""),
    through("pytorch/cuda-oom", "deepspeed", "en", thread("https://github.com/EricFillion/happy-transformer/issues/333"), r"""
fine-tuning Llama-2 with happy-transformer + deepspeed, same result on 1xA100 and 8xA6000:

torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 25.10 GiB (GPU 0; 79.15 GiB total capacity; 62.79 GiB already allocated; 15.26 GiB free; 62.79 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation. See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF
[2023-09-07 13:55:11,220] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 15064
[2023-09-07 13:55:11,220] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', './ht_01.py', '-- local_rank=0'] exits with return code = 1
"""),
    through("pytorch/cuda-oom", "llama-cookbook", "en", thread("https://github.com/meta-llama/llama-cookbook/issues/949"), r"""
[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB. GPU 2 has a total capacity of 14.61 GiB of which 1.99 GiB is free. Including non-PyTorch memory, this process has 12.62 GiB memory in use. Of the allocated memory 8.50 GiB is allocated by PyTorch, and 3.96 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)
[rank1]: Traceback (most recent call last):
[rank1]:   File "/Volume1/ocr/codes/finetuning_llama/finetuning2.py", line 8, in <module>
[rank1]:     fire.Fire(main)
[rank1]:   File "/Volume1/conda_env/llama_env/lib/python3.9/site-packages/fire/core.py", line 135, in Fire
[rank1]:     component_trace = _Fire(component, args, parsed_flag_args, context, name)
"""),
    through("pytorch/cuda-oom", "onetrainer", "en", thread("https://github.com/Nerogar/OneTrainer/issues/841"), r"""
Traceback (most recent call last):
  File "/home/gero/GitHub/OneTrainer/scripts/train.py", line 47, in <module>
    main()
  File "/home/gero/GitHub/OneTrainer/scripts/train.py", line 34, in main
    trainer.start()
  File "/home/gero/GitHub/OneTrainer/modules/trainer/GenericTrainer.py", line 129, in start
    self.model_setup.setup_train_device(self.model, self.config)
  File "/home/gero/GitHub/OneTrainer/modules/modelSetup/FluxLoRASetup.py", line 180, in setup_train_device
    model.transformer_to(self.train_device)
  File "/home/gero/GitHub/OneTrainer/modules/model/FluxModel.py", line 161, in transformer_to
    self.transformer.to(device=device)
  ... (recursive _apply calls) ...
  File "/home/gero/anaconda3/envs/onetrainer/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1329, in convert
    return t.to(
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 108.00 MiB. GPU 0 has a total capacity of 23.51 GiB of which 98.31 MiB is free. Including non-PyTorch memory, this process has 20.99 GiB memory in use.
"""),
    # pytorch/no-grad-fn
    through("pytorch/no-grad-fn", "transformers", "en", thread("https://github.com/huggingface/transformers/issues/26377"), r"""
[WARNING|logging.py:305] 2023-09-25 11:56:23,032 >> `use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`...
Traceback (most recent call last):
  File "run_clm_pt_with_peft.py", line 642, in <module>
    main()
  File "run_clm_pt_with_peft.py", line 610, in main
    train_result = trainer.train(resume_from_checkpoint=checkpoint)
  File "/home/tupk/anaconda3/envs/nlp/lib/python3.8/site-packages/transformers/trainer.py", line 1555, in train
    return inner_training_loop(
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
"""),
    through("pytorch/no-grad-fn", "accelerate", "zh", thread("https://github.com/codefuse-ai/MFTCoder/issues/22"), r"""
train_utils.py 里 accelerator.backward(loss) 这一行报错，大家遇到过吗？

Traceback (most recent call last):
  File "mft_accelerate.py", line 375, in <module>
    main()
  File "mft_accelerate.py", line 371, in main
    accelerate_train(accelerator, model, train_dataloader, valid_dataloader, optimizer, lr_scheduler, num_update_steps_per_epoch, len(train_dataset), args)
  File "/data2/hhy/QwenCode/pefts/train_utils.py", line 178, in accelerate_train
    accelerator.backward(loss)
  File "/data2/hhy/anaconda3/envs/CodeFT/lib/python3.8/site-packages/accelerate/accelerator.py", line 1847, in backward
    self.deepspeed_engine_wrapped.backward(loss, **kwargs)
  File "/data2/hhy/anaconda3/envs/CodeFT/lib/python3.8/site-packages/accelerate/utils/deepspeed.py", line 167, in backward
    self.engine.backward(loss, **kwargs)
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
"""),
    through("pytorch/no-grad-fn", "accelerate", "en", thread("https://github.com/brian6091/Dreambooth/issues/23"), r"""
is_leaf(True) requires_grad(False) retains_grad(False) grad_fn(None) grad(None)
Traceback (most recent call last):
  File "/content/Dreambooth/finetune.py", line 701, in <module>
    main(args)
  File "/content/Dreambooth/finetune.py", line 618, in main
    accelerator.backward(loss)
  File "/usr/local/lib/python3.8/dist-packages/accelerate/accelerator.py", line 1314, in backward
    self.scaler.scale(loss).backward(**kwargs)
  File "/usr/local/lib/python3.8/dist-packages/torch/_tensor.py", line 487, in backward
    torch.autograd.backward(
  File "/usr/local/lib/python3.8/dist-packages/torch/autograd/__init__.py", line 197, in backward
    Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
"""),
    # pytorch/shape-matmul
    through("pytorch/shape-matmul", "lightning", "en", thread("https://github.com/chemprop/chemprop/issues/925"), r"""
Traceback (most recent call last):
  File "/fred/oz241/BSIM/prototype_files/sdf_to_smi_test/test/test8.py", line 242, in <module>
    main()
  File "/fred/oz241/BSIM/prototype_files/sdf_to_smi_test/test/test8.py", line 190, in training_function
    trainer.fit(mpnn, train_loader, val_loader)
  File "/fred/oz241/BSIM/conda_chemprop/bsim_chemprop/lib/python3.11/site-packages/lightning/pytorch/trainer/trainer.py", line 544, in fit
    call._call_and_handle_interrupt(
  File "/fred/oz241/BSIM/conda_chemprop/bsim_chemprop/lib/python3.11/site-packages/lightning/pytorch/trainer/call.py", line 44, in _call_and_handle_interrupt
    return trainer_fn(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/fred/oz241/BSIM/conda_chemprop/bsim_chemprop/lib/python3.11/site-packages/lightning/pytorch/trainer/trainer.py", line 987, in _run
    results = self._run_stage()
              ^^^^^^^^^^^^^^^^^
RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x2348 and 300x300)
"""),
    through("pytorch/shape-matmul", "lightning", "ko", thread("https://github.com/YoujiaZhang/USD/issues/1"), r"""
trainer.fit 들어가자마자 매번 이 에러가 납니다. 어떻게 해결하나요?

Traceback (most recent call last):
  File "/workspace/assethub-ml-server/api/common/libs/USD/launch.py", line 240, in <module>
    main(args, extras)
  File "/workspace/assethub-ml-server/api/common/libs/USD/launch.py", line 183, in main
    trainer.fit(system, datamodule=dm, ckpt_path=cfg.resume)
  File "/workspace/assethub-ml-server/api/common/libs/ImageDream/venv_image/lib/python3.10/site-packages/pytorch_lightning/trainer/trainer.py", line 543, in fit
    call._call_and_handle_interrupt(
  File "/workspace/assethub-ml-server/api/common/libs/ImageDream/venv_image/lib/python3.10/site-packages/pytorch_lightning/trainer/call.py", line 44, in _call_and_handle_interrupt
    return trainer_fn(*args, **kwargs)
RuntimeError: mat1 and mat2 shapes cannot be multiplied (154x768 and 1024x320)
"""),
    through("pytorch/shape-matmul", "lightning", "en", thread("https://github.com/Lightning-AI/pytorch-lightning/issues/19271"), r"""
when I run testing or try to resume training:

Traceback (most recent call last):
  File "/home/sort/ved/LaVIN_2/main.py", line 5, in <module>
    cli = LightningCLI()
  File "/home/sort/miniconda3/envs/tf211/lib/python3.9/site-packages/lightning/pytorch/cli.py", line 386, in __init__
    self._run_subcommand(self.subcommand)
  File "/home/sort/miniconda3/envs/tf211/lib/python3.9/site-packages/lightning/pytorch/trainer/trainer.py", line 754, in test
    return call._call_and_handle_interrupt(
  File "/home/sort/miniconda3/envs/tf211/lib/python3.9/site-packages/lightning/pytorch/trainer/trainer.py", line 794, in _test_impl
    results = self._run(model, ckpt_path=ckpt_path)
RuntimeError: mat1 and mat2 shapes cannot be multiplied
"""),
    through("pytorch/shape-matmul", "lightning", "en", thread("https://github.com/theislab/multimil/issues/77"), r"""
File ~/sw/miniconda3/envs/multimil_DRVI/lib/python3.10/site-packages/pytorch_lightning/trainer/trainer.py:1214, in Trainer._run_train(self)
   1211 self.fit_loop.trainer = self
   1213 with torch.autograd.set_detect_anomaly(self._detect_anomaly):
-> 1214     self.fit_loop.run()

File ~/sw/miniconda3/envs/multimil_DRVI/lib/python3.10/site-packages/pytorch_lightning/loops/loop.py:199, in Loop.run(self, *args, **kwargs)
    197 try:
    198     self.on_advance_start(*args, **kwargs)
--> 199     self.advance(*args, **kwargs)
    200     self.on_advance_end()

RuntimeError: mat1 and mat2 shapes cannot be multiplied (256x35228 and 30x30)
"""),
    # pytorch/index-out-of-range
    through("pytorch/index-out-of-range", "transformers", "en", thread("https://github.com/thunlp/PL-Marker/issues/18"), r"""
  File "/home/tongna/PythonCode/zhangxu/tmp/PLMarker/transformers/src/transformers/modeling_bert.py", line 795, in forward
    input_ids=input_ids, position_ids=position_ids, token_type_ids=token_type_ids, inputs_embeds=inputs_embeds
  File "/home/tongna/anaconda3/envs/PLMarker/lib/python3.7/site-packages/torch/nn/modules/module.py", line 1110, in _call_impl
    return forward_call(*input, **kwargs)
  File "/home/tongna/PythonCode/zhangxu/tmp/PLMarker/transformers/src/transformers/modeling_bert.py", line 175, in forward
    position_embeddings = self.position_embeddings(position_ids)
  File "/home/tongna/anaconda3/envs/PLMarker/lib/python3.7/site-packages/torch/nn/modules/module.py", line 1110, in _call_impl
    return forward_call(*input, **kwargs)
  File "/home/tongna/anaconda3/envs/PLMarker/lib/python3.7/site-packages/torch/nn/modules/sparse.py", line 160, in forward
    self.norm_type, self.scale_grad_by_freq, self.sparse)
  File "/home/tongna/anaconda3/envs/PLMarker/lib/python3.7/site-packages/torch/nn/functional.py", line 2183, in embedding
    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
IndexError: index out of range in self

Process finished with exit code 1
"""),
    through("pytorch/index-out-of-range", "transformers", "zh", thread("https://github.com/shenwzh3/RGAT-ABSA/issues/14"), r"""
用 bert 预训练模型时报错：

Epoch:   0% 0/30 [00:00<?, ?it/s]Traceback (most recent call last):
  File "run.py", line 191, in <module>
    main()
  File "/content/drive/My Drive/Colab Notebooks/yht/RGAT-ABSA-master/trainer.py", line 147, in train
    logit = model(**inputs)
  File "/content/drive/My Drive/Colab Notebooks/yht/RGAT-ABSA-master/model.py", line 291, in forward
    outputs = self.bert(input_cat_ids, token_type_ids = segment_ids)
  File "/usr/local/lib/python3.6/dist-packages/transformers/models/bert/modeling_bert.py", line 956, in forward
    past_key_values_length=past_key_values_length,
  File "/usr/local/lib/python3.6/dist-packages/transformers/models/bert/modeling_bert.py", line 200, in forward
    inputs_embeds = self.word_embeddings(input_ids)
IndexError: index out of range in self
"""),
    through("pytorch/index-out-of-range", "transformers", "en", thread("https://github.com/huggingface/transformers/issues/15867"), r"""
---------------------------------------------------------------------------
IndexError                                Traceback (most recent call last)
/tmp/ipykernel_33/857740956.py in <module>
    112     eval_dataset=valid_data,
    113 )
--> 114 trainer.train()

/opt/conda/lib/python3.7/site-packages/transformers/trainer.py in train(self, resume_from_checkpoint, trial, ignore_keys_for_eval, **kwargs)
   1330                         tr_loss_step = self.training_step(model, inputs)
   1331                 else:
-> 1332                     tr_loss_step = self.training_step(model, inputs)

/opt/conda/lib/python3.7/site-packages/transformers/trainer.py in compute_loss(self, model, inputs, return_outputs)
   1922             labels = None
-> 1923         outputs = model(**inputs)

IndexError: index out of range in self
"""),
    # pytorch/weights-only-unpickling
    through("pytorch/weights-only-unpickling", "lightning", "en", thread("https://github.com/Lightning-AI/pytorch-lightning/issues/21757"), r"""
LearningRateFinder dies when it restores the checkpoint:

UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two options, do those steps only if you trust the source of the checkpoint. 
	(1) In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the file from a trusted source.
	(2) Alternatively, to load with `weights_only=True` please check the recommended steps in the following error message.
	WeightsUnpickler error: Unsupported global: GLOBAL torch.nn.modules.loss.MSELoss was not an allowed global by default. Please use `torch.serialization.add_safe_globals([torch.nn.modules.loss.MSELoss])` or the `torch.serialization.safe_globals([torch.nn.modules.loss.MSELoss])` context manager to allowlist this global if you trust this class/function.
"""),
    through("pytorch/weights-only-unpickling", "lightning", "ko", thread("https://github.com/cellarium-ai/cellarium-ml/issues/353"), r"""
lightning을 2.5.5로 올린 뒤로 CLI가 저장된 체크포인트를 못 읽습니다

_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two options, do those steps only if you trust the source of the checkpoint. 
        (1) In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the file from a trusted source.
        (2) Alternatively, to load with `weights_only=True` please check the recommended steps in the following error message.
        WeightsUnpickler error: Unsupported global: GLOBAL cellarium.ml.core.module.CellariumModule was not an allowed global by default. Please use `torch.serialization.add_safe_globals([cellarium.ml.core.module.CellariumModule])` or the `torch.serialization.safe_globals([cellarium.ml.core.module.CellariumModule])` context manager to allowlist this global if you trust this class/function.
"""),
    through("pytorch/weights-only-unpickling", "lightning", "en", thread("https://github.com/Lightning-AI/pytorch-lightning/issues/20643"), r"""
convert_zero_checkpoint_to_fp32_state_dict on a DeepSpeed checkpoint after upgrading to torch 2.6.0:

_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two options, do those steps only if you trust the source of the checkpoint...
"""),
    through("pytorch/weights-only-unpickling", "nomeroff-net", "en", thread("https://github.com/ria-com/nomeroff-net/issues/319"), r"""
Downloading: "https://download.pytorch.org/models/resnet18-f37072fd.pth" to /home/zeus/.cache/torch/hub/checkpoints/resnet18-f37072fd.pth
100%|██████████████████████████████████████████| 44.7M/44.7M [00:00<00:00, 294MB/s]
Traceback (most recent call last):
  File "/teamspace/studios/this_studio/nomeroff-net/tutorials/py/inference/get-started-demo-ocr-custom.py", line 17, in <module>
    number_plate_detection_and_reading = pipeline("number_plate_detection_and_reading",
  File "/teamspace/studios/this_studio/nomeroff-net/tutorials/py/inference/../../../nomeroff_net/pipelines/__init__.py", line 128, in pipeline
    return pipeline_class(task, image_loader, **pipeline_kwargs, **kwargs)
Weights only load failed. This file can still be loaded, to do so you have two options, do those steps only if you trust the source of the checkpoint.
"""),
    # pytorch/state-dict-mismatch
    through("pytorch/state-dict-mismatch", "detecto", "en", thread("https://github.com/alankbi/detecto/issues/50"), r"""
PS C:\Users\Raj\Desktop\COD_RCNN_cod\src> python inference.py
C:\Users\Raj\AppData\Roaming\Python\Python312\site-packages\torchvision\models\_utils.py:208: UserWarning: The parameter 'pretrained' is deprecated since 0.13 and may be removed in the future, please use 'weights' instead.
RuntimeError: Error(s) in loading state_dict for FasterRCNN:
	size mismatch for roi_heads.box_predictor.cls_score.weight: copying a param with shape torch.Size([91, 1024]) from checkpoint, the shape in current model is torch.Size([3, 1024]).
	size mismatch for roi_heads.box_predictor.cls_score.bias: copying a param with shape torch.Size([91]) from checkpoint, the shape in current model is torch.Size([3]).
	size mismatch for roi_heads.box_predictor.bbox_pred.weight: copying a param with shape torch.Size([364, 1024]) from checkpoint, the shape in current model is torch.Size([12, 1024]).
	size mismatch for roi_heads.box_predictor.bbox_pred.bias: copying a param with shape torch.Size([364]) from checkpoint, the shape in current model is torch.Size([12]).
"""),
    # pytorch/conv-input-channels
    through("pytorch/conv-input-channels", "torchvision", "en", thread("https://github.com/pytorch/vision/issues/7356"), r"""
torchvision.models.resnet.ResNet on Omniglot (1-channel images):

RuntimeError: Given groups=1, weight of size [64, 3, 7, 7], expected input[10, 1, 64, 64] to have 3 channels, but got 1 channels instead
"""),
    through("pytorch/conv-input-channels", "vit-pytorch", "zh", thread("https://github.com/lucidrains/vit-pytorch/issues/54"), r"""
想用 distiller 在灰度图数据集上训练 ViT，老师模型 ResNet 报通道数不对：

RuntimeError: Given groups=1, weight of size [64, 3, 7, 7], expected input[64, 1, 224, 224] to have 3 channels, but got 1 channels instead
"""),
]
