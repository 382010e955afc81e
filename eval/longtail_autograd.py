"""Long-tail pasted errors about autograd and optimisation: anomaly-mode NaNs, inference tensors,
.grad of non-leaf tensors, optimizer parameter lists, gradient shapes, missing derivatives,
deterministic algorithms, GradScaler, clipping non-finite norms, checkpoint inputs and the
scheduler/optimizer step order."""

from __future__ import annotations

from .longtail_common import (RAN, RAN_FRAMES, known, known_gpu, line, msg, ran, rows, thread, thread_tb,
                              warning)
from .render import BACKWARD, at, fence, slack_escape, traceback
from .sample import sample

ITEMS: list[dict] = []


def add(*args) -> None:
    ITEMS.append(sample(*args))


# --- pytorch/anomaly-nan-backward ---------------------------------------------------------
ID = "pytorch/anomaly-nan-backward"

add(ID, "traceback", "en", RAN_FRAMES + "; the anomaly-mode warning above it written from the 2.x format",
    "/home/jiwoo/work/sdf/train.py:88: UserWarning: Error detected in SqrtBackward0. Traceback of forward call that caused the error:\n"
    '  File "/home/jiwoo/work/sdf/train.py", line 88, in <module>\n    dist = (pts - center).pow(2).sum(-1).sqrt()\n'
    " (Triggered internally at /pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:122.)\n"
    + traceback([
        ("/home/jiwoo/work/sdf/train.py", 95, "<module>", "loss.backward()"),
        *at("venv312", rows("anomaly_sqrt")),
    ], line("anomaly_sqrt")))

add(ID, "line", "en", RAN, line("anomaly_div"))

add(ID, "prose-en", "en", thread("https://github.com/pytorch/pytorch/issues/22820", "SMAPE loss with a zero denominator"),
    "implemented SMAPE: numerator/denominator with torch.div, masked the nan entries out of the mean, the loss itself is finite, "
    "but with detect_anomaly on backward says\nRuntimeError: Function 'DivBackward0' returned nan values in its 0th output.")

add(ID, "traceback", "en", thread_tb("https://github.com/pytorch/pytorch/issues/37712", "PyTorch 1.4-era frames, anomaly mode on"),
    '''  File "main.py", line 374, in compute_plane
    ca_cb, LU = torch.solve(B, A + eps)

Traceback (most recent call last):
  File "main.py", line 879, in <module>
    main()
  File "main.py", line 544, in train
    loss.backward()
  File "/lib/python3.6/site-packages/torch/tensor.py", line 107, in backward
    torch.autograd.backward(self, gradient, retain_graph, create_graph)
  File "/lib/python3.6/site-packages/torch/autograd/__init__.py", line 93, in backward
    allow_unreachable=True)  # allow_unreachable flag
RuntimeError: Function 'SolveBackward' returned nan values in its 0th output.''')

add(ID, "prose-zh", "zh", thread("https://github.com/leftthomas/CGD/issues/12"),
    "训练时 loss 变成 nan，加了 torch.autograd.detect_anomaly() 以后报：\n"
    "RuntimeError: Function 'PowBackward0' returned nan values in its 0th output\n指向 model.py 第 27 行的 GeM pooling。")

add(ID, "prose-ko", "ko", thread("https://github.com/DerrickXuNu/v2x-vit/issues/15", "one line added: torch.autograd.set_detect_anomaly(True)"),
    "train.py 맨 위에 torch.autograd.set_detect_anomaly(True) 한 줄만 넣었는데 학습 시작하자마자 이게 나와요. 어텐션 부분인 것 같아요.\n"
    "RuntimeError: Function 'MmBackward0' returned nan values in its 1th output.")

add(ID, "truncated", "en", thread_tb("https://github.com/facebookresearch/svoice/issues/78", "as pasted in backticks"),
    '''`python3.8/site-packages/torch/autograd/__init__.py", line 130, in backward
    Variable._execution_engine.run_backward(
RuntimeError: Function 'DivBackward0' returned nan values in its 1th output.`''')

add(ID, "traceback", "en", thread("https://github.com/sosppxo/MDIN/issues/15", "the anomaly warning as pasted (trimmed); the final lines written by hand from the 1.12 frames"),
    '''/root/miniconda3/envs/3d-gres/lib/python3.8/site-packages/torch/autograd/__init__.py:173: UserWarning: Error detected in DivBackward0. Traceback of forward call that caused the error:
  File "tools/train_3dgres.py", line 72, in train
    loss, log_vars = model(batch, mode='loss')
  File "/root/MDIN-main/gres_model/model/model.py", line 132, in loss
    loss, loss_dict = self.criterion(out, gt_pmasks, gt_spmasks, sp_ref_masks, object_idss, sp_ins_labels, dense_maps, lang_masks, fps_seed_sp, sp_coords_float, batch_offsets)
 (Triggered internally at  /opt/conda/conda-bld/pytorch_1656352465323/work/torch/csrc/autograd/python_anomaly_mode.cpp:102.)
  Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
Traceback (most recent call last):
  File "tools/train_3dgres.py", line 80, in train
    loss.backward()
  File "/root/miniconda3/envs/3d-gres/lib/python3.8/site-packages/torch/_tensor.py", line 396, in backward
    torch.autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)
  File "/root/miniconda3/envs/3d-gres/lib/python3.8/site-packages/torch/autograd/__init__.py", line 173, in backward
    Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
RuntimeError: Function 'DivBackward0' returned nan values in its 0th output.''')


# --- pytorch/inference-tensor-backward ------------------------------------------------------
ID = "pytorch/inference-tensor-backward"

add(ID, "line", "en", RAN, line("inference_saved"))

add(ID, "traceback", "en", RAN_FRAMES + "; features cached under inference_mode, then fine-tuned",
    traceback([
        ("/home/alice/proj/probe/train.py", 52, "<module>", "logits = head(cached_feats)\n         ^^^^^^^^^^^^^^^^^^"),
        *at("alice311", rows("inference_saved")),
    ], line("inference_saved")))

add(ID, "prose-en", "en", RAN + "; in-place update of an inference tensor",
    "I build the running statistics under torch.inference_mode() and later update them with add_ in the training loop:\n"
    "RuntimeError: " + msg("inference_inplace"))

add(ID, "prose-zh", "zh", thread("https://github.com/hiyouga/LlamaFactory/issues/220", "the pre-2.9 wording"),
    "PPO 训练 LLaMA-30B 的时候报错：\n"
    "RuntimeError: Inference tensors cannot be saved for backward. To work around you can make a clone to get a normal tensor and use it in autograd.")

add(ID, "prose-ko", "ko", thread("https://github.com/facebookresearch/dinov2/issues/472", "a decorator of the hub model turns on inference mode"),
    "공식 노트북의 depther 모델을 만든 다음부터는 backbone만 forward해도 학습이 안 돼요. create_depther 전에는 괜찮았어요.\n"
    "RuntimeError: Inference tensors cannot be saved for backward. To work around you can make a clone to get a normal tensor and use it in autograd.")

add(ID, "traceback", "en", thread_tb("https://github.com/ai4co/rl4co/issues/272", "raised through Lightning, macOS conda, trimmed; message as that version printed it"),
    '''  File "/opt/anaconda3/envs/rl4co/lib/python3.12/site-packages/lightning/pytorch/loops/optimization/automatic.py", line 146, in __call__
    self._result = self.closure(*args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/anaconda3/envs/rl4co/lib/python3.12/site-packages/torch/utils/_contextlib.py", line 116, in decorate_context
    return func(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^
  File "/opt/anaconda3/envs/rl4co/lib/python3.12/site-packages/lightning/pytorch/loops/optimization/automatic.py", line 319, in _training_step
    training_step_output = call._call_strategy_hook(trainer, "training_step", *kwargs.values())
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
RuntimeError: Inference tensors cannot be saved for backward. To work around you can make a clone to get a normal tensor and use it in autograd.''')

add(ID, "truncated", "en", thread("https://github.com/unslothai/unsloth/issues/2434", "GRPO with vLLM generation; cut mid-message"),
    "[rank0]: RuntimeError: Inference tensors cannot be saved for backward. To work around you can make a clone to get a normal tens")


# --- pytorch/non-leaf-grad-none -------------------------------------------------------------
ID = "pytorch/non-leaf-grad-none"

NONLEAF = warning("warn_non_leaf_grad")["message"]

add(ID, "prose-en", "en", ran("the UserWarning of 2.13; the symptom is grad being None"),
    "w = torch.randn(3, 1, requires_grad=True).cuda() and after backward w.grad is None, plus this:\n"
    "/home/alice/proj/linreg.py:19: UserWarning: " + NONLEAF + "\n  print(w.grad)")

add(ID, "line", "en", RAN, "UserWarning: " + NONLEAF)

add(ID, "truncated", "en", thread("https://github.com/bigscience-workshop/Megatron-DeepSpeed/issues/356", "torch 1.11 on a cluster, launcher-prefixed; cut"),
    "[default2]:/p/software/juwelsbooster/stages/2022/software/PyTorch/1.11-gcccoremkl-11.2.0-2021.4.0-CUDA-11.5/lib/python3.9/site-packages/torch/_tensor.py:1104: "
    "UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be populated during autograd.backward(). "
    "If you indeed want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor.\n[default2]:  return self._grad")

add(ID, "prose-ko", "ko", thread("https://github.com/bubbliiiing/yolov7-pytorch/issues/42", "Windows Store Python, torch 1.12.1+cu116"),
    "추론은 잘 되는데 실행할 때마다 이 경고가 떠요. 무시해도 되는 건지, 어떻게 없애는지 궁금해요.\n"
    "C:\\Users\\presa\\AppData\\Local\\Packages\\PythonSoftwareFoundation.Python.3.9_qbz5n2kfra8p0\\LocalCache\\local-packages\\Python39\\site-packages\\torch\\_tensor.py:1083: "
    "UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be populated during autograd.backward(). "
    "If you indeed want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, "
    "make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more informations. (Triggered internally at  "
    "C:\\actions-runner\\_work\\pytorch\\pytorch\\builder\\windows\\pytorch\\build\\aten\\src\\ATen/core/TensorBody.h:482.)\n  return self._grad")

add(ID, "traceback", "en", thread_tb("https://github.com/microsoft/nni/issues/5299", "raised through NNI's model speedup, wrapped as pasted; a hard one, the warning comes from a library"),
    """[2022-12-27 10:01:54] Update the indirect sparsity for the model.classifier.3
/home/user/miniconda3/envs/prune/lib/python3.8/site-packages/nni/compression/pytorch/speedup/infer_mask.py:275: 
UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be populated during autograd.backward(). 
If you indeed want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. 
If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more informations.
(Triggered internally at aten/src/ATen/core/TensorBody.h:480.)
  if isinstance(self.output, torch.Tensor) and self.output.grad is not None:""")

add(ID, "prose-zh", "zh", ran("Jupyter; the parameter was created then multiplied"),
    "手写线性回归，w = torch.randn(1, requires_grad=True) * 0.01，backward 以后 w.grad 一直是 None，还有警告：\n"
    "/tmp/ipykernel_412/2264319873.py:9: UserWarning: " + NONLEAF + "\n  w -= lr * w.grad")

add(ID, "traceback", "en", known("1.7-2.x", "a hard one: the warning is followed by a TypeError from using the None"),
    "/home/kim/gan/attack.py:41: UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more informations. (Triggered internally at  aten/src/ATen/core/TensorBody.h:417.)\n"
    "  perturbed = image + epsilon * image.grad.sign()\n"
    + traceback([("/home/kim/gan/attack.py", 41, "fgsm", "perturbed = image + epsilon * image.grad.sign()")],
                "AttributeError: 'NoneType' object has no attribute 'sign'"))

add(ID, "prose-en", "en", known("1.7-2.x", "Slack-escaped, in a fence"),
    "<@U05TORCHBOT> why is my grad None? " + slack_escape(fence(
        "x = torch.linspace(0, 1, 5, requires_grad=True) ** 2\ny = (x * 3).sum(); y.backward()\nprint(x.grad)  # -> None\n"
        "UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be populated during autograd.backward().")))


# --- pytorch/optimizer-empty-params ----------------------------------------------------------
ID = "pytorch/optimizer-empty-params"

add(ID, "traceback", "en", thread_tb("https://github.com/kyegomez/LiqudNet/issues/6", "with the download lines before it"),
    '''Extracting ./data/cifar-10-python.tar.gz to ./data
Files already downloaded and verified
Traceback (most recent call last):
  File "/home/v/LiqudNet/train.py", line 51, in <module>
    optimizer = optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
  File "/home/v/.local/lib/python3.10/site-packages/torch/optim/sgd.py", line 27, in __init__
    super().__init__(params, defaults)
  File "/home/v/.local/lib/python3.10/site-packages/torch/optim/optimizer.py", line 187, in __init__
    raise ValueError("optimizer got an empty parameter list")
ValueError: optimizer got an empty parameter list''')

add(ID, "line", "en", RAN, line("optimizer_empty"))

add(ID, "prose-zh", "zh", thread("https://github.com/lxztju/pytorch_classification/issues/13", "every parameter frozen by requires_grad=False"),
    "加载完模型之后就报错，定位到：\n  File \"train.py\", line 76, in <module>\n"
    "    optimizer = optim.Adam(filter(lambda p: p.requires_grad, model.parameters()), lr=cfg.LR)\n"
    "ValueError: optimizer got an empty parameter list")

add(ID, "prose-en", "en", thread("https://github.com/pytorch/pytorch/issues/50402", "a module without parameters"),
    "my model is generated automatically and sometimes has no nn.Parameter at all (pure functional blocks). then\n"
    "`optim = torch.optim.Adam(model.parameters())` raises ValueError: optimizer got an empty parameter list")

add(ID, "traceback", "en", thread_tb("https://github.com/frankwang345/pruning-from-scratch/issues/4", "log lines before the traceback"),
    '''[23:35:15.184] ==> Initializing model...
[23:35:16.123] ==> Transforming model...
Traceback (most recent call last):
  File "/home/n26120642/Test_folder/pruning-from-scratch/learn_gates.py", line 98, in <module>
    optimizer = torch.optim.Adam(gates_params, lr=args.lr)
  File "/home/n26120642/anaconda3/envs/test_env/lib/python3.10/site-packages/torch/optim/adam.py", line 137, in __init__
    super(Adam, self).__init__(params, defaults)
  File "/home/n26120642/anaconda3/envs/test_env/lib/python3.10/site-packages/torch/optim/optimizer.py", line 61, in __init__
    raise ValueError("optimizer got an empty parameter list")
ValueError: optimizer got an empty parameter list''')

add(ID, "prose-ko", "ko", thread("https://github.com/danieltan07/learning-to-reweight-examples/issues/6", "a meta-module class whose weights are not nn.Parameter"),
    "LeNet을 MetaModule로 감싼 모델에서 optim.SGD(model.parameters(), ...)를 만들면 에러가 나요.\n"
    '  File "/usr/local/lib/python3.6/dist-packages/torch/optim/optimizer.py", line 38, in __init__\n'
    '    raise ValueError("optimizer got an empty parameter list")\nValueError: optimizer got an empty parameter list')

add(ID, "truncated", "en", thread("https://github.com/YirongMao/softmax_variants/issues/7", "a loss module without parameters"),
    "    optimizer_l = optim.SGD(lgm_loss.parameters(), lr=0.1)\nValueError: optimizer got an empty parameter list")


# --- pytorch/optimizer-non-leaf ---------------------------------------------------------------
ID = "pytorch/optimizer-non-leaf"

add(ID, "line", "en", RAN, line("optimizer_non_leaf"))

add(ID, "traceback", "en", thread_tb("https://github.com/boyuanzheng010/SemEval2021-Reading-Comprehension-of-Abstract-Meaning/issues/3"),
    '''Traceback (most recent call last):
  File "Baselines/Run_GAReader.py", line 216, in <module>
    model_filename)
  File "Baselines/Run_GAReader.py", line 182, in main
    optimizer = optim.SGD(model.parameters(), lr=config.lr)
  File "/usr/local/lib/python3.6/dist-packages/torch/optim/sgd.py", line 68, in __init__
    super(SGD, self).__init__(params, defaults)
  File "/usr/local/lib/python3.6/dist-packages/torch/optim/optimizer.py", line 52, in __init__
    self.add_param_group(param_group)
  File "/usr/local/lib/python3.6/dist-packages/torch/optim/optimizer.py", line 233, in add_param_group
    raise ValueError("can't optimize a non-leaf Tensor")
ValueError: can't optimize a non-leaf Tensor''')

add(ID, "prose-en", "en", thread("https://github.com/vinsis/ternary-quantization/issues/4", "requires_grad set before .to(device)"),
    "scaling_factors = [torch.ones(2, requires_grad=True).to(device) for _ in range(n)]\n"
    "optimizer = torch.optim.Adam(scaling_factors, lr=1e-3)\n-> ValueError: can't optimize a non-leaf Tensor (torch 1.1)")

add(ID, "prose-ko", "ko", thread("https://github.com/pytorch/pytorch/issues/140469", "dataset distillation: a leaf tensor multiplied by 0.01"),
    "dataset distillation에서 합성 이미지를 image_syn = torch.randn(..., requires_grad=True, device=dev) * 0.01로 만들고 SGD에 넣었더니 에러가 나요.\n"
    "ValueError: can't optimize a non-leaf Tensor")

add(ID, "traceback", "en", thread_tb("https://github.com/danieltan07/learning-to-reweight-examples/issues/4", "PyTorch 0.4 wording 'non-leaf Variable' in a Jupyter traceback; last line typed from that wording (the paste was cut)"),
    """ValueError                                Traceback (most recent call last)
<ipython-input-42-e9ad59170ca6> in <module>()
----> 1 net, opt = build_model()

<ipython-input-41-fbfd01c8c083> in build_model()
      6         torch.backends.cudnn.benchmark=True
      7 
----> 8     opt = torch.optim.SGD(net.params(),lr=hyperparameters["lr"])

/opt/anaconda3/lib/python3.6/site-packages/torch/optim/optimizer.py in add_param_group(self, param_group)
    153                 raise ValueError("optimizer can only optimize Tensors, "

ValueError: can't optimize a non-leaf Variable""")

add(ID, "prose-zh", "zh", thread("https://github.com/aliasgharkhani/SLiMe/issues/10", "a slice of an embedding handed to the optimizer"),
    "复现 SLiMe 优化 text embedding 的时候报 can't optimize a non-leaf Tensor，"
    "我查了 is_leaf，embeddings_to_optimize 是 text_embedding 的一个切片：\nValueError: can't optimize a non-leaf Tensor")

add(ID, "truncated", "en", thread("https://github.com/locuslab/differentiable-mpc/issues/5", "IPython traceback (torch 1.13), cut at the failing call"),
    """--> 260     opt = optim.RMSprop(params)

ValueError: can't optimize a non-leaf Tensor""")


# --- pytorch/grad-shape-mismatch -------------------------------------------------------------
ID = "pytorch/grad-shape-mismatch"

add(ID, "line", "en", RAN, line("grad_shape_backward"))

add(ID, "traceback", "en", thread_tb("https://github.com/natanielruiz/deep-head-pose/issues/124", "torch 1.12; the warning line before it as pasted"),
    '''/home/redhwan/.local/lib/python3.8/site-packages/torch/optim/adam.py:90: UserWarning: optimizer contains a parameter group with duplicate parameters; in future, this will cause an error; see github.com/pytorch/pytorch/issues/40967 for more information
  super(Adam, self).__init__(params, defaults)
Ready to train network.
Traceback (most recent call last):
  File "train_hopenet.py", line 193, in <module>
    torch.autograd.backward(loss_seq, grad_seq)
  File "/home/redhwan/.local/lib/python3.8/site-packages/torch/autograd/__init__.py", line 166, in backward
    grad_tensors_ = _make_grads(tensors, grad_tensors_, is_grads_batched=False)
  File "/home/redhwan/.local/lib/python3.8/site-packages/torch/autograd/__init__.py", line 50, in _make_grads
    raise RuntimeError("Mismatch in shape: grad_output["
RuntimeError: Mismatch in shape: grad_output[0] has a shape of torch.Size([1]) and output[0] has a shape of torch.Size([]).''')

add(ID, "prose-en", "en", thread("https://github.com/Zeleni9/pytorch-wgan/issues/5", "WGAN-GP code written for torch 0.3 (one = torch.FloatTensor([1]))"),
    "running the WGAN-GP example on a recent torch, d_loss_real.backward(mone) fails:\n"
    "RuntimeError: Mismatch in shape: grad_output[0] has a shape of torch.Size([1]) and output[0] has a shape of torch.Size([]).")

add(ID, "prose-ko", "ko", thread("https://github.com/PRBonn/LiDAR-MOS/issues/35", "4 GPUs with DataParallel"),
    "GPU 4장으로 학습하면 trainer.py 389번째 줄 loss_m.backward(idx)에서 이렇게 나와요. 1장일 때는 괜찮아요.\n"
    "RuntimeError: Mismatch in shape: grad_output[0] has a shape of torch.Size([4]) and output[0] has a shape of torch.Size([1]).")

add(ID, "prose-zh", "zh", thread("https://github.com/ChenRocks/fast_abs_rl/issues/73"),
    "rl.py 里这样写的：\nautograd.backward(\n    [critic_loss] + losses,\n    [torch.ones(1).to(critic_loss.device)]*(1+len(losses)),\n)\n"
    "报错 RuntimeError: Mismatch in shape: grad_output[0] has a shape of torch.Size([1]) and output[0] has a shape of torch.Size([]).")

add(ID, "truncated", "en", thread_tb("https://github.com/ssnl/dataset-distillation/issues/29", "logger-prefixed traceback, cut"),
    '''2020-03-25 14:01:27 [ERROR]  Traceback (most recent call last):
2020-03-25 14:01:27 [ERROR]    File "main.py", line 402, in <module>
2020-03-25 14:01:27 [ERROR]      main(options.get_state())
2020-03-25 14:01:27 [ERROR]    File "/home/zhedamai/PycharmProjects/dataset-distillation/train_distilled_image.py", line 221, in train
2020-03-25 14:01:27 [ERROR]      evaluate_steps(state, steps, 'Begin of epoch {}'.format(epoch))
2020-03-25 14:01:27 [ERROR]  RuntimeError: Mismatch in shape: grad_output[0] has a shape of torch.Size([1]) and output[0] has a shape of torch.Size([]).''')

add(ID, "traceback", "en", thread("https://github.com/chr5tphr/zennit/issues/58", "IPython excerpt as pasted; message from the issue title"),
    """---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
<ipython-input-30-5d15a2db92a9> in <module>
     55         output_relevance[:, -1, :, :] = output[:, -1, :, :]
     56         # this will compute the modified gradient of model, with the on
---> 57         output, relevance = attributor(data.cuda(), output_relevance.cuda())

RuntimeError: Mismatch in shape: grad_output[0] has a shape of torch.Size([1, 1, 80, 80]) and output[0] has a shape of torch.Size([1, 1, 96, 96]).""")


# --- pytorch/derivative-not-implemented ------------------------------------------------------
ID = "pytorch/derivative-not-implemented"

add(ID, "line", "en", RAN + "; double backward through CTC loss", line("derivative_ctc_double"))

add(ID, "traceback", "en", RAN_FRAMES + "; gradient penalty (create_graph=True) through torch.cdist",
    traceback([
        ("/home/jiwoo/work/metric/train.py", 131, "<module>", "penalty.backward()"),
        *at("venv312", rows("derivative_cdist_double")),
    ], line("derivative_cdist_double")))

add(ID, "traceback", "en", thread_tb("https://github.com/CSyyn/VCformer/issues/4", "torch 1.9"),
    '''Traceback (most recent call last):
  File "run.py", line 177, in <module>
    exp.train(setting)
  File "/home/www/long-term-baselines/VCformer-main/exp/exp_long_term_forecasting.py", line 180, in train
    loss.backward()
  File "/home/www/anaconda3/lib/python3.8/site-packages/torch/_tensor.py", line 255, in backward
    torch.autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)
  File "/home/www/anaconda3/lib/python3.8/site-packages/torch/autograd/__init__.py", line 147, in backward
    Variable._execution_engine.run_backward(
RuntimeError: the derivative for 'linalg_lstsq' is not implemented.''')

add(ID, "prose-en", "en", thread("https://github.com/pytorch/pytorch/issues/60923", "nn.Unfold inside torch.autograd.grad(create_graph=True)"),
    "using nn.Unfold in a model and computing a gradient penalty with torch.autograd.grad, I get\n"
    "RuntimeError: derivative for im2col_backward is not implemented")

add(ID, "prose-zh", "zh", thread("https://github.com/yxgeee/FD-GAN/issues/11", "BCE target requires grad (torch 0.4-1.x)"),
    "把 batchsize 改成 8 以后训练 train.py 就报错，判别器的 loss 用的是 BCELoss，target 是另一个网络的输出：\n"
    "RuntimeError: the derivative for 'target' is not implemented")

add(ID, "prose-ko", "ko", thread("https://github.com/elias-ramzi/ROADMAP/issues/9", "torch.heaviside in the loss, torch 1.9.1"),
    "SOP 데이터셋으로 실험 돌리면 loss 계산에서 heaviside를 쓰는 부분 때문에 backward가 안 된대요. torch 1.8.1로 내리면 괜찮았어요.\n"
    "RuntimeError: derivative for heaviside is not implemented")

add(ID, "truncated", "en", thread("https://github.com/allenai/savn/issues/31", "second-order gradient through a fused LSTM cell on GPU"),
    "RuntimeError: derivative for _thnn_fused_lstm_cell_backward is not implemented")

add(ID, "traceback", "en", thread_tb("https://github.com/traveller59/spconv/issues/334", "torch 1.9"),
    '''Traceback (most recent call last):
  File "main.py", line 113, in <module>
    main(config)
  File "/home/snap_user/Image_Segmentation/solver1.py", line 162, in train
    loss.backward()
  File "/home/snap_user/anaconda3/lib/python3.8/site-packages/torch/_tensor.py", line 255, in backward
    torch.autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)
  File "/home/snap_user/anaconda3/lib/python3.8/site-packages/torch/autograd/__init__.py", line 147, in backward
    Variable._execution_engine.run_backward(
RuntimeError: derivative for to_sparse is not implemented''')


# --- pytorch/deterministic-not-implemented ------------------------------------------------------
# No public paste of the full message turned up in the look-ups; the lines are written from
# the known wording (CUDA only) and the situations from the threads named in the notes.
ID = "pytorch/deterministic-not-implemented"

DET_TAIL = ("You can turn off determinism just for this operation, or you can use the 'warn_only=True' option, "
            "if that's acceptable for your application. You can also file an issue at "
            "https://github.com/pytorch/pytorch/issues to help us prioritize adding deterministic support for this operation.")

add(ID, "line", "en", known_gpu("1.11-2.x"),
    "RuntimeError: scatter_add_cuda_kernel does not have a deterministic implementation, but you set "
    "'torch.use_deterministic_algorithms(True)'. " + DET_TAIL)

add(ID, "traceback", "en", known_gpu("2.1", "raised in the backward of adaptive average pooling"),
    traceback([
        ("/workspace/repro/train.py", 77, "<module>", "loss.backward()"),
        *at("conda310", BACKWARD["2.1"]),
    ], "RuntimeError: adaptive_avg_pool2d_backward_cuda does not have a deterministic implementation, but you set "
       "'torch.use_deterministic_algorithms(True)'. " + DET_TAIL))

add(ID, "prose-en", "en", known_gpu("1.8-2.x", "the cuBLAS variant of the same class"),
    "set torch.use_deterministic_algorithms(True) for reproducibility and now the first linear layer fails:\n"
    "RuntimeError: Deterministic behavior was enabled with either `torch.use_deterministic_algorithms(True)` or "
    "`at::Context::setDeterministicAlgorithms(true)`, but this operation is not deterministic because it uses CuBLAS and you have CUDA >= 10.2. "
    "To enable deterministic behavior in this case, you must set an environment variable before running your PyTorch application: "
    "CUBLAS_WORKSPACE_CONFIG=:4096:8 or CUBLAS_WORKSPACE_CONFIG=:16:8. For more information, go to "
    "https://docs.nvidia.com/cuda/cublas/index.html#cublasApi_reproducibility")

add(ID, "prose-ko", "ko", known_gpu("1.11-2.x", "Lightning Trainer(deterministic=True), situation as in https://github.com/Lightning-AI/pytorch-lightning/issues/9544"),
    "Lightning에서 Trainer(deterministic=True)로 바꿨더니 세그멘테이션 모델의 업샘플링 backward에서 죽어요.\n"
    "RuntimeError: upsample_bilinear2d_backward_out_cuda does not have a deterministic implementation, but you set "
    "'torch.use_deterministic_algorithms(True)'. " + DET_TAIL)

add(ID, "prose-zh", "zh", known_gpu("1.8-1.10", "scatter_add in an RL agent, situation as in https://github.com/HorizonRobotics/alf/pull/1334"),
    "固定了随机种子并开了确定性算法，SAC 跑 atari 的时候报：\n"
    "RuntimeError: scatter_add_cuda_kernel does not have a deterministic implementation, but you set 'torch.use_deterministic_algorithms(True)'. "
    "You can turn off determinism just for this operation if that's acceptable for your application. You can also file an issue at "
    "https://github.com/pytorch/pytorch/issues to help us prioritize adding deterministic support for this operation.")

add(ID, "truncated", "en", known_gpu("1.7", "the torch.set_deterministic wording of 1.7"),
    "...index_add_cuda_ does not have a deterministic implementation, but you set 'torch.set_deterministic(True)'. "
    "You can turn off determinism just for this operation if that's acceptable for your application.")

add(ID, "traceback", "en", known_gpu("2.x", "Slack-escaped; torch.histc on a CUDA tensor"),
    "<@U05TORCHBOT> " + slack_escape(fence(traceback([
        ("/home/kim/calib/ece.py", 18, "ece", "counts = torch.histc(conf, bins=15, min=0, max=1)"),
    ], "RuntimeError: _histc_cuda does not have a deterministic implementation, but you set 'torch.use_deterministic_algorithms(True)'. " + DET_TAIL))))


# --- pytorch/gradscaler-unscale-fp16 ------------------------------------------------------------
ID = "pytorch/gradscaler-unscale-fp16"

add(ID, "traceback", "en", thread_tb("https://github.com/Facico/Chinese-Vicuna/issues/168", "raised through the transformers Trainer, 2x V100"),
    '''Traceback (most recent call last):
  File "finetune.py", line 271, in <module>
    trainer.train(resume_from_checkpoint=args.resume_from_checkpoint)
  File "/home/whzhu_st/mypython/lib/python3.8/site-packages/transformers/trainer.py", line 1664, in train
    return inner_training_loop(
  File "/home/whzhu_st/mypython/lib/python3.8/site-packages/transformers/trainer.py", line 1973, in _inner_training_loop
    self.scaler.unscale_(self.optimizer)
  File "/home/whzhu_st/mypython/lib/python3.8/site-packages/torch/cuda/amp/grad_scaler.py", line 282, in unscale_
    optimizer_state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
  File "/home/whzhu_st/mypython/lib/python3.8/site-packages/torch/cuda/amp/grad_scaler.py", line 210, in _unscale_grads_
    raise ValueError("Attempting to unscale FP16 gradients.")
ValueError: Attempting to unscale FP16 gradients.''')

add(ID, "traceback", "en", thread_tb("https://github.com/zai-org/CogVideo/issues/775", "through accelerate, WSL"),
    '''Traceback (most recent call last):
  File "/mnt/d/TA_ucup/Cogvideo/finetune/trainer.py", line 434, in train
    grad_norm = accelerator.clip_grad_norm_(
  File "/home/ikhsanrobbani/anaconda3/envs/cogvideox/lib/python3.10/site-packages/accelerate/accelerator.py", line 2509, in clip_grad_norm_
    self.unscale_gradients()
  File "/home/ikhsanrobbani/anaconda3/envs/cogvideox/lib/python3.10/site-packages/accelerate/accelerator.py", line 2453, in unscale_gradients
    self.scaler.unscale_(opt)
  File "/home/ikhsanrobbani/anaconda3/envs/cogvideox/lib/python3.10/site-packages/torch/amp/grad_scaler.py", line 338, in unscale_
    optimizer_state["found_inf_per_device"] = self._unscale_grads_(
  File "/home/ikhsanrobbani/anaconda3/envs/cogvideox/lib/python3.10/site-packages/torch/amp/grad_scaler.py", line 260, in _unscale_grads_
    raise ValueError("Attempting to unscale FP16 gradients.")
ValueError: Attempting to unscale FP16 gradients.''')

add(ID, "prose-zh", "zh", thread("https://github.com/mark1879/Baichuan-13B-Finetuning/issues/21"),
    "Baichuan-13B LoRA 微调，一开始就报错，进度条还是 0：\n"
    '  File "/root/miniconda3/lib/python3.8/site-packages/torch/cuda/amp/grad_scaler.py", line 212, in _unscale_grads_\n'
    '    raise ValueError("Attempting to unscale FP16 gradients.")\nValueError: Attempting to unscale FP16 gradients.\n'
    "  0%|          | 0/6931 [00:01<?, ?it/s]")

add(ID, "prose-en", "en", thread("https://github.com/mk-minchul/AdaFace/issues/127", "a layer cast to float16 by hand"),
    "training AdaFace on my own 10k-class dataset with AMP, right at the first step:\n"
    "ValueError: Attempting to unscale FP16 gradients.\nI did change one PReLU to .half() to save memory, could that be it?")

add(ID, "prose-ko", "ko", thread("https://github.com/haotian-liu/LLaVA/issues/363", "--fp16 True with LoRA"),
    "LLaVA를 --lora_enable True --fp16 True로 파인튜닝하면 첫 스텝에서 에러가 나요. 모델 가중치를 fp16으로 불러온 상태예요.\n"
    "ValueError: Attempting to unscale FP16 gradients.")

add(ID, "line", "en", known_gpu("1.6-2.x", "the second message of the class: unscale_ called twice"),
    "RuntimeError: unscale_() has already been called on this optimizer since the last update().")

add(ID, "truncated", "en", thread("https://github.com/QwenAudio/FunMusic/issues/28", "torchrun error-file traceback, torch 2.3, cut at the raise"),
    '''      scaler.unscale_(optimizer)  # Unscale gradients before clipping
    File "/cpfs01/shared/public/wanghaoran/anaconda3/envs/inspiremusic/lib/python3.8/site-packages/torch/amp/grad_scaler.py", line 337, in unscale_
      optimizer_state["found_inf_per_device"] = self._unscale_grads_(
    File "/cpfs01/shared/public/wanghaoran/anaconda3/envs/inspiremusic/lib/python3.8/site-packages/torch/amp/grad_scaler.py", line 259, in _unscale_grads_
      raise ValueError("''')

add(ID, "prose-en", "en", known_gpu("1.6-2.x", "gradient clipping inside a loop that calls unscale_ per accumulation step"),
    "grad accumulation with GradScaler, I call scaler.unscale_(opt) + clip_grad_norm_ every micro-batch:\n```\n"
    '  File "/opt/conda/lib/python3.10/site-packages/torch/amp/grad_scaler.py", line 327, in unscale_\n'
    '    raise RuntimeError(\n'
    "RuntimeError: unscale_() has already been called on this optimizer since the last update().\n```")


# --- pytorch/clip-grad-nonfinite -------------------------------------------------------------------
ID = "pytorch/clip-grad-nonfinite"

add(ID, "line", "en", RAN, line("clip_nonfinite"))

add(ID, "traceback", "en", RAN_FRAMES + "; fp16 training loop with clipping",
    traceback([
        ("/home/alice/proj/lm/train.py", 203, "train_step", "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)"),
        *at("alice311", rows("clip_nonfinite")),
    ], line("clip_nonfinite")))

add(ID, "traceback", "en", known("2.x", "frames from a public thread https://github.com/lightly-ai/lightly-train/issues/255 (Windows, through lightning_fabric, trimmed); its message was cut there, so the last line is typed from the 2.x wording with 'inf' norm"),
    r'''Training for 1000 steps...
Traceback (most recent call last):
  File "I:\02Seg\6A_Seg_win\train2.py", line 4, in <module>
    lightly_train.train_semantic_segmentation(
  File "D:\ProgramData\Anaconda3\envs\sam_dino\lib\site-packages\lightly_train\_task_models\dinov3_eomt_semantic_segmentation\train_model.py", line 538, in clip_gradients
    fabric.clip_gradients(
  File "D:\ProgramData\Anaconda3\envs\sam_dino\lib\site-packages\lightning_fabric\fabric.py", line 476, in clip_gradients
    return self.strategy.clip_gradients_norm(
  File "D:\ProgramData\Anaconda3\envs\sam_dino\lib\site-packages\torch\nn\utils\clip_grad.py", line 105, in clip_grad_norm_
    raise RuntimeError(
RuntimeError: The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`''')

add(ID, "prose-en", "en", known("1.9", "the FutureWarning 1.9 printed instead of raising"),
    "loss goes nan after a few hundred steps and before that I see\n"
    "FutureWarning: Non-finite norm encountered in torch.nn.utils.clip_grad_norm_; continuing anyway. Note that the default behavior will change in a future release to error out if a non-finite total norm is encountered. At that point, setting error_if_nonfinite=false will be required to retain the old behavior.")

add(ID, "prose-ko", "ko", thread("https://github.com/lightly-ai/lightly-train/issues/255", "situation from the thread; message as 2.13 prints it (eval/capture_longtail.py)"),
    "세그멘테이션 학습을 몇 스텝 돌리면 gradient clipping에서 멈춰요. error_if_nonfinite=False는 어디에 넣어야 하나요?\n"
    "RuntimeError: " + msg("clip_nonfinite"))

add(ID, "prose-zh", "zh", known("1.10-2.x", "the norm value printed as nan"),
    "混合精度训练，梯度裁剪那一步直接报错了：\n"
    "RuntimeError: The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot be clipped. "
    "To disable this error and scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")

add(ID, "truncated", "en", known("1.10-2.x", "infinity norm (norm_type=inf), cut at the end"),
    "RuntimeError: The total norm of order inf for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and sca")


# --- pytorch/checkpoint-no-grad-inputs -----------------------------------------------------------
ID = "pytorch/checkpoint-no-grad-inputs"

CKPT = warning("warn_checkpoint_inputs")

add(ID, "line", "en", ran("the warning with the file and line torch 2.13 printed it from"),
    f"/opt/conda/lib/python3.10/site-packages/{CKPT['file']}:{CKPT['line']}: UserWarning: {CKPT['message']}")

add(ID, "prose-en", "en", thread("https://github.com/petko-nikolov/pysemseg/issues/5", "torch 1.x checkpoint.py:25"),
    "FC-DenseNet with memory-efficient checkpointing prints this at inference even under no_grad and eval():\n"
    "python3.7/site-packages/torch/utils/checkpoint.py:25: UserWarning: None of the inputs have requires_grad=True. Gradients will be None\n"
    '  warnings.warn("None of the inputs have requires_grad=True. Gradients will be None")')

add(ID, "prose-zh", "zh", thread("https://github.com/earth-insights/ZoomEarth/issues/3", "gradient checkpointing with a frozen embedding"),
    "GRPO 训练时把 --gradient_checkpointing 设成 True，就一直提示 UserWarning: None of the inputs have requires_grad=True. Gradients will be None，"
    "设成 False 不提示但会 OOM，这个警告会影响训练吗？")

add(ID, "truncated", "en", thread_tb("https://github.com/Victorwz/LLaVA-Llama-3/issues/4", "Colab/Linux dist-packages, two warnings"),
    '''/usr/local/lib/python3.10/dist-packages/torch/utils/checkpoint.py:429: UserWarning: torch.utils.checkpoint: please pass in use_reentrant=True or use_reentrant=False explicitly. The default value of use_reentrant will be updated to be False in the future. To maintain current behavior, pass use_reentrant=True. It is recommended that you use use_reentrant=False. Refer to docs for more details on the differences between the two variants.
  warnings.warn(
/usr/local/lib/python3.10/dist-packages/torch/utils/checkpoint.py:61: UserWarning: None of the inputs have requires_grad=True. Gradients will be None
  warnings.warn(''')

add(ID, "prose-ko", "ko", thread("https://github.com/bitsandbytes-foundation/bitsandbytes/issues/182", "Windows venv path as pasted"),
    "LoRA 학습에서 gradient checkpoint를 켜면 이 경고가 뜨고 loss가 안 줄어요. 꺼야 하나요?\n"
    "M:\\kohya_ss\\venv\\lib\\site-packages\\torch\\utils\\checkpoint.py:31: UserWarning: None of the inputs have requires_grad=True. Gradients will be None\n"
    '  warnings.warn("None of the inputs have requires_grad=True. Gradients will be None")')

add(ID, "traceback", "en", thread("https://github.com/hiyouga/LlamaFactory/issues/6357", "warning line as pasted (checkpoint.py:87, torch 2.1-2.4); command from the thread trimmed; a hard one because a frozen vision tower feeds the checkpointed blocks"),
    "CUDA_VISIBLE_DEVICES=0 llamafactory-cli train --model_name_or_path /model/llama_3.2v_11B --stage sft --finetuning_type full --freeze_vision_tower true --bf16 true\n"
    "...\n"
    "_env/lib/python3.10/site-packages/torch/utils/checkpoint.py:87: UserWarning: None of the inputs have requires_grad=True. Gradients will be None\n"
    "  warnings.warn(")

add(ID, "prose-en", "en", ran("the 2.13 warning from use_reentrant=True with an input that does not require grad"),
    "fine-tuning only the head, backbone blocks wrapped in checkpoint(..., use_reentrant=True); the head trains but the blocks never change and I get\n"
    f"/home/jiwoo/.venv/lib/python3.12/site-packages/{CKPT['file']}:{CKPT['line']}: UserWarning: {CKPT['message']}")


# --- pytorch/scheduler-step-order ------------------------------------------------------------------
ID = "pytorch/scheduler-step-order"

SCHED = warning("warn_scheduler_first")["message"]

add(ID, "line", "en", RAN, "UserWarning: " + SCHED)

add(ID, "traceback", "en", thread_tb("https://github.com/lufficc/SSD/pull/98", "torch 1.1-1.2 lr_scheduler.py:82 (the 'schedule.See' without a space is as printed)"),
    '''python3.6/site-packages/torch/optim/lr_scheduler.py:82: UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should call them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first value of the learning rate schedule.See more details at https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate
  "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate", UserWarning)''')

add(ID, "prose-en", "en", thread("https://github.com/coarse-graining/cgnet/issues/105", "scheduler.step() at the top of the epoch loop; the warning wrapped as pasted"),
    "our example loop calls scheduler.step() first thing in each epoch, and on my mac (torch 1.2) it prints\n"
    "/Users/brooke/miniconda3/envs/noelab/lib/python3.6/site-packages/torch/optim/lr_scheduler.py:82:\n"
    "UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`.\n"
    "In PyTorch 1.1.0 and later, you should call them in the opposite order:\n`optimizer.step()` before `lr_scheduler.step()`.")

add(ID, "prose-ko", "ko", thread("https://github.com/zju3dv/NeuralRecon/issues/51"),
    "학습 시작할 때 이 경고가 떠요. 순서를 바꿔야 하는 건지, 무시해도 되는 건지 궁금해요.\n"
    "/usr/wiss/zuox/storage/slurm/zuox/miniconda3/envs/neucon/lib/python3.7/site-packages/torch/optim/lr_scheduler.py:123: UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
    "In PyTorch 1.1.0 and later, you should call them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  "
    "Failure to do this will result in PyTorch skipping the first value of the learning rate schedule. See more details at https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate")

add(ID, "prose-zh", "zh", ran("a hard one: AMP skipped the first optimizer step (inf gradients), so the order in the code is right"),
    "我的代码里明明是先 scaler.step(optimizer) 再 scheduler.step()，用了混合精度以后还是出现这个警告：\n"
    "/root/miniconda3/envs/mm/lib/python3.10/site-packages/torch/optim/lr_scheduler.py:198: UserWarning: " + SCHED)

add(ID, "truncated", "en", thread("https://github.com/Daniil-Osokin/lightweight-human-pose-estimation.pytorch/issues/142", "only the first sentences"),
    "UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should call them in the opposite order: "
    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first value of the learning rate schedule.")

add(ID, "traceback", "en", thread_tb("https://github.com/deepspeedai/DeepSpeed/issues/1120", "torch 1.8 lr_scheduler.py:131 with the warnings.warn line below it"),
    '''/home/cristian/miniconda3/envs/salsanext/lib/python3.8/site-packages/torch/optim/lr_scheduler.py:131: UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should call them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first value of the learning rate schedule. See more details at https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate
  warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. "''')
