"""Pasted errors for the autograd classes: backward twice, in-place edits, leaves,
missing grad_fn, non-scalar backward, numpy() on a tensor that requires grad."""

from __future__ import annotations

from .render import (BACKWARD, at, captured, captured_rows, exc_line, fence, slack_escape, sp, traceback)
from .sample import RAN, known, sample

ITEMS: list[dict] = []


def add(*args) -> None:
    ITEMS.append(sample(*args))


# --- pytorch/backward-twice ----------------------------------------------------------
ID = "pytorch/backward-twice"
BT_MSG = captured("backward_twice")["message"]

add(ID, "traceback", "en", "message as torch 2.13 prints it (same since 1.10); frames written for 2.1",
    traceback([
        ("/home/alice/proj/gan/train.py", 142, "<module>", "main(cfg)"),
        ("/home/alice/proj/gan/train.py", 118, "main", "g_loss, d_loss = train_step(netG, netD, real, opt_g, opt_d)"),
        ("/home/alice/proj/gan/train.py", 71, "train_step", "loss_g.backward()"),
        *at("conda310", BACKWARD["2.1"]),
    ], "RuntimeError: " + BT_MSG))

add(ID, "traceback", "en", "Colab output written by hand around the torch 2.13 message",
    """
---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
[<ipython-input-18-9c1e2f7d4b3a>](https://localhost:8080/#) in <cell line: 0>()
     10         out, hidden = model(x, hidden)
     11         loss = criterion(out.view(-1, vocab_size), y.view(-1))
---> 12         loss.backward()
     13         nn.utils.clip_grad_norm_(model.parameters(), 0.25)
     14         optimizer.step()

2 frames
[/usr/local/lib/python3.11/dist-packages/torch/autograd/graph.py](https://localhost:8080/#) in _engine_run_backward(t_outputs, *args, **kwargs)
    822         unregister_hooks = _register_logging_hooks_on_whole_graph(t_outputs)
    823     try:
--> 824         return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
    825             t_outputs, *args, **kwargs
    826         )  # Calls into the C++ engine to run the backward pass

RuntimeError: """ + BT_MSG)

add(ID, "prose-ko", "ko", RAN,
    "이거 왜 이래요? 어제까지 잘 됐는데 hidden state를 다음 배치로 넘기게 바꾸고 나서부터 두 번째 배치에서 바로 죽어요 ㅠㅠ\n"
    + fence(traceback([
        ("/home/jiwoo/work/lm/train_lstm.py", 57, "<module>", "loss.backward()\n^^^^^^^^^^^^^^^"),
        *at("venv312", captured_rows("backward_twice")),
    ], exc_line("backward_twice"))))

add(ID, "line", "en", known("1.4-1.8"),
    "RuntimeError: Trying to backward through the graph a second time, but the saved intermediate results "
    "have already been freed. Specify retain_graph=True when calling backward the first time.")

add(ID, "truncated", "en", "torch 2.13 message cut at both ends as a partial copy",
    BT_MSG[14:260])

add(ID, "prose-zh", "zh", "message as torch 2.13 prints it; Windows frames written for 1.13",
    "求助，训练第二个epoch就报这个错，第一个epoch完全正常，代码就是普通的训练循环：\n\n"
    + traceback([
        (r"C:\Users\Chen Wei\Desktop\cls\train.py", 96, "train_one_epoch", "total_loss.backward()"),
        *at("win2", BACKWARD["1.13"]),
    ], "RuntimeError: " + BT_MSG, header=False))

add(ID, "traceback", "en", "rich/typer boxed traceback written by hand around the torch 2.13 message",
    """
╭──────────────────────────────── Traceback (most recent call last) ────────────────────────────────╮
│ /home/alice/proj/rl/cli.py:64 in train                                                           │
│                                                                                                  │
│   61 │   │   values = critic(states)                                                             │
│   62 │   │   advantages = returns - values                                                       │
│   63 │   │   critic_loss = advantages.pow(2).mean()                                              │
│ ❱ 64 │   │   critic_loss.backward()                                                              │
│   65 │   │   actor_loss = -(log_probs * advantages).mean()                                       │
│   66 │   │   actor_loss.backward()                                                               │
│                                                                                                  │
│ /opt/conda/lib/python3.10/site-packages/torch/_tensor.py:581 in backward                         │
│                                                                                                  │
│    578 │   │   │   │   create_graph=create_graph,                                                │
│    579 │   │   │   │   inputs=inputs,                                                            │
│    580 │   │   │   )                                                                             │
│ ❱  581 │   │   torch.autograd.backward(                                                          │
│    582 │   │   │   self, gradient, retain_graph, create_graph, inputs=inputs                     │
│    583 │   │   )                                                                                 │
│                                                                                                  │
│ /opt/conda/lib/python3.10/site-packages/torch/autograd/graph.py:825 in _engine_run_backward      │
│                                                                                                  │
│   822 │   │   unregister_hooks = _register_logging_hooks_on_whole_graph(t_outputs)               │
│   823 │   try:                                                                                   │
│   824 │   │   return Variable._execution_engine.run_backward(  # Calls into the C++ engine to ru │
│ ❱ 825 │   │   │   t_outputs, *args, **kwargs                                                     │
│   826 │   │   )  # Calls into the C++ engine to run the backward pass                            │
╰──────────────────────────────────────────────────────────────────────────────────────────────────╯
RuntimeError: """ + BT_MSG)

add(ID, "prose-en", "en", known("1.3") + "; as Slack delivers it (mention, &lt; &gt; escaped)",
    "<@U04BOT123> any idea? actor-critic, crashes on the 2nd update. torch 1.3.1 on our old cluster\n"
    + slack_escape(fence(traceback([
        ("a2c.py", 88, "<module>", "(actor_loss + critic_loss).backward()"),
        ("/usr/local/lib/python3.6/dist-packages/torch/tensor.py", 166, "backward",
         "torch.autograd.backward(self, gradient, retain_graph, create_graph)"),
        ("/usr/local/lib/python3.6/dist-packages/torch/autograd/__init__.py", 99, "backward",
         "allow_unreachable=True)  # allow_unreachable flag"),
    ], "RuntimeError: Trying to backward through the graph a second time, but the buffers have already "
       "been freed. Specify retain_graph=True when calling backward the first time."))))


# --- pytorch/inplace-modified --------------------------------------------------------
ID = "pytorch/inplace-modified"
HINT_OLD = ("Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
            "with torch.autograd.set_detect_anomaly(True).")
GOOD_LUCK = ("Hint: the backtrace further above shows the operation that failed to compute its gradient. "
             "The variable in question was changed in there or anywhere later. Good luck!")

add(ID, "traceback", "en", known("1.10-2.0"),
    traceback([
        ("/home/alice/proj/segnet/train.py", 203, "train", "scaler.scale(loss).backward()"),
        *at("conda310", BACKWARD["2.0"]),
    ], "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace "
       "operation: [torch.cuda.FloatTensor [64, 128, 56, 56]], which is output 0 of ReluBackward0, is at "
       "version 1; expected version 0 instead. " + HINT_OLD))

add(ID, "prose-zh", "zh", known("1.7-1.9"),
    "GAN 训练，先 optimizer_D.step() 更新了判别器，然后再对生成器的 loss 做 backward 就报错。"
    "按提示开了 anomaly detection，输出如下：\n"
    + fence("""
[W python_anomaly_mode.cpp:104] Warning: Error detected in AddmmBackward. Traceback of forward call that caused the error:
  File "train_gan.py", line 131, in <module>
    d_fake = netD(fake)
  File "/home/zhang/anaconda3/lib/python3.8/site-packages/torch/nn/modules/module.py", line 727, in _call_impl
    result = self.forward(*input, **kwargs)
  File "/home/zhang/gan/models.py", line 58, in forward
    return self.fc(h)
  File "/home/zhang/anaconda3/lib/python3.8/site-packages/torch/nn/functional.py", line 1690, in linear
    ret = torch.addmm(bias, input, weight.t())
 (function _print_stack)
Traceback (most recent call last):
  File "train_gan.py", line 140, in <module>
    loss_G.backward()
  File "/home/zhang/anaconda3/lib/python3.8/site-packages/torch/tensor.py", line 221, in backward
    torch.autograd.backward(self, gradient, retain_graph, create_graph)
  File "/home/zhang/anaconda3/lib/python3.8/site-packages/torch/autograd/__init__.py", line 132, in backward
    allow_unreachable=True)  # allow_unreachable flag
RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.cuda.FloatTensor [1024, 1]], which is output 0 of TBackward, is at version 2; expected version 1 instead. """ + GOOD_LUCK))

add(ID, "traceback", "en", RAN,
    traceback([
        ("/home/jiwoo/work/resmlp/train.py", 112, "<module>", "loss.backward()\n^^^^^^^^^^^^^^^"),
        *at("venv312", captured_rows("inplace_modified_relu")),
    ], exc_line("inplace_modified_relu")))

add(ID, "line", "en", known("2.1-2.4"),
    "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace "
    "operation: [torch.cuda.FloatTensor [512, 256]], which is output 0 of AsStridedBackward0, is at version 3; "
    "expected version 2 instead. Hint: enable anomaly detection to find the operation that failed to compute "
    "its gradient, with torch.autograd.set_detect_anomaly(True).")

add(ID, "prose-ko", "ko", known("1.13"),
    "메모리 좀 아끼려고 nn.ReLU(inplace=True)로 바꿨더니 backward에서 이렇게 터지네요. 원래 코드로 돌리면 괜찮습니다.\n"
    "```\n  File \"/data/minsu/unet/train.py\", line 77, in <module>\n    loss.backward()\n"
    + "\n".join(f'  File "{p}", line {n}, in {f}\n    {c}' for p, n, f, c in at("conda38", BACKWARD["1.13"]))
    + "\nRuntimeError: one of the variables needed for gradient computation has been modified by an inplace "
      "operation: [torch.cuda.HalfTensor [16, 64, 128, 128]], which is output 0 of CudnnBatchNormBackward0, is at "
      "version 1; expected version 0 instead. " + HINT_OLD + "\n```")

add(ID, "truncated", "en", known("1.10+") + ", cut mid-word",
    "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace "
    "operation: [torch.cuda.FloatTensor [8, 3, 224, 224]], which is output 0 of SliceBack")

add(ID, "prose-en", "en", known("2.1") + "; Jupyter output as Slack delivers it (&gt; escaped)",
    "anyone seen this? I think it's the masking line but I don't see why\n```\n"
    """---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
Cell In[23], line 9
      7 attn = scores.softmax(dim=-1)
      8 attn.masked_fill_(pad_mask == 0, 0.0)
----&gt; 9 loss = F.cross_entropy(attn @ v, y); loss.backward()

File ~/miniconda3/envs/dl/lib/python3.11/site-packages/torch/_tensor.py:492, in Tensor.backward(self, gradient, retain_graph, create_graph, inputs)
    482 if has_torch_function_unary(self):
    483     return handle_torch_function(
    484         Tensor.backward,
    485         (self,),
   (...)
    490         inputs=inputs,
    491     )
--&gt; 492 torch.autograd.backward(
    493     self, gradient, retain_graph, create_graph, inputs=inputs
    494 )

File ~/miniconda3/envs/dl/lib/python3.11/site-packages/torch/autograd/__init__.py:251, in backward(tensors, grad_tensors, retain_graph, create_graph, grad_variables, inputs)
    246     retain_graph = create_graph
    248 # The reason we repeat the same comment below is that
    249 # some Python versions print out the first line of a multi-line function
    250 # calls in the traceback and some print out the last line
--&gt; 251 Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
    252     tensors,
    253     grad_tensors_,
    254     retain_graph,
    255     create_graph,
    256     inputs,
    257     allow_unreachable=True,
    258     accumulate_grad=True,
    259 )

RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [4, 8, 16, 16]], which is output 0 of SoftmaxBackward0, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True).
```""")

add(ID, "traceback", "en", known("1.13") + "; Kaggle notebook output",
    """
---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
/tmp/ipykernel_33/2718281828.py in <module>
     41         probs = torch.sigmoid(logits)
     42         probs[probs < 0.05] = 0
---> 43         loss = bce(probs, targets); loss.backward()
     44         opt.step()

/opt/conda/lib/python3.7/site-packages/torch/_tensor.py in backward(self, gradient, retain_graph, create_graph, inputs)
    485                 inputs=inputs,
    486             )
--> 487         torch.autograd.backward(
    488             self, gradient, retain_graph, create_graph, inputs=inputs
    489         )

/opt/conda/lib/python3.7/site-packages/torch/autograd/__init__.py in backward(tensors, grad_tensors, retain_graph, create_graph, grad_variables, inputs)
    195     # some Python versions print out the first line of a multi-line function
    196     # calls in the traceback and some print out the last line
--> 197     Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
    198         tensors, grad_tensors_, retain_graph, create_graph, inputs,
    199         allow_unreachable=True, accumulate_grad=True)  # Calls into the C++ engine to run the backward pass

RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.cuda.FloatTensor [32, 14]], which is output 0 of SigmoidBackward0, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True).""")


# --- pytorch/leaf-inplace ------------------------------------------------------------
ID = "pytorch/leaf-inplace"

add(ID, "traceback", "en", RAN,
    traceback([
        ("/home/alice/proj/meta/maml.py", 77, "<module>", "inner_update(model, support_x, support_y)"),
        ("/home/alice/proj/meta/maml.py", 41, "inner_update", "p -= inner_lr * g\n^^^^^^^^^^^^^^^^^"),
    ], exc_line("leaf_inplace")))

add(ID, "traceback", "en", RAN + "; Colab layout",
    """
---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
[<ipython-input-6-0f3b2a1d9e4c>](https://localhost:8080/#) in <cell line: 0>()
      2 emb = nn.Embedding(len(vocab), 300)
      3 # padding row should stay zero
----> 4 emb.weight[vocab["<pad>"]] = 0
      5 emb.weight[vocab["<unk>"]].normal_(0, 0.1)

RuntimeError: """ + captured("leaf_view_inplace")["message"])

add(ID, "line", "en", known("0.4-1.4"),
    "RuntimeError: a leaf Variable that requires grad has been used in an in-place operation.")

add(ID, "prose-ko", "ko", RAN,
    "경사하강법을 직접 구현해보는 중인데 가중치 업데이트하는 줄에서 이렇게 나와요. 교재 코드랑 똑같이 쓴 것 같은데 뭐가 다른 걸까요?\n"
    "```\nfor epoch in range(100):\n    y_hat = X @ w + b\n    loss = ((y_hat - y) ** 2).mean()\n    loss.backward()\n"
    "    w -= lr * w.grad\n    b -= lr * b.grad\n```\n" + exc_line("leaf_inplace"))

add(ID, "prose-zh", "zh", known("1.13"),
    "做 FGSM 对抗样本，x_adv 设置了 requires_grad=True，更新那一步报错：\n"
    + traceback([
        ("/mnt/lustre/zhangsan/adv/attack.py", 54, "<module>", "x_adv = fgsm(model, images, labels, eps=8/255)"),
        ("/mnt/lustre/zhangsan/adv/attack.py", 23, "fgsm", "x_adv += eps * x_adv.grad.sign()"),
    ], "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation."))

add(ID, "truncated", "en", "torch 2.13 message cut mid-word",
    "RuntimeError: a leaf Variable that requires grad is being used in an in-pl")

add(ID, "traceback", "en", known("1.13"),
    traceback([
        (r"C:\Users\minji\Documents\pgd\attack.py", 88, "<module>", "delta = pgd_linf(model, X, y, epsilon=0.03, alpha=0.01, num_iter=40)"),
        (r"C:\Users\minji\Documents\pgd\attack.py", 37, "pgd_linf", "delta.clamp_(-epsilon, epsilon)"),
    ], "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation."))


# --- pytorch/no-grad-fn --------------------------------------------------------------
ID = "pytorch/no-grad-fn"
NGF = "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"

add(ID, "traceback", "en", RAN,
    traceback([
        ("/home/alice/proj/finetune/train_head.py", 92, "<module>", "train(model, loader, epochs=args.epochs)"),
        ("/home/alice/proj/finetune/train_head.py", 61, "train", "loss.backward()\n^^^^^^^^^^^^^^^"),
        *at("alice311", captured_rows("no_grad_fn")),
    ], exc_line("no_grad_fn")))

add(ID, "prose-en", "en", known("2.1") + "; transformers/accelerate frames written by hand",
    "LoRA finetune with gradient_checkpointing=True dies at step 0. Without checkpointing it trains fine. "
    "peft 0.6.2, transformers 4.35, torch 2.1.0\n"
    + fence(traceback([
        ("/home/alice/proj/llm/finetune_lora.py", 188, "<module>", "trainer.train()"),
        (sp("conda310", "transformers/trainer.py"), 1555, "train", "return inner_training_loop("),
        (sp("conda310", "transformers/trainer.py"), 1860, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs)"),
        (sp("conda310", "transformers/trainer.py"), 2734, "training_step", "self.accelerator.backward(loss)"),
        (sp("conda310", "accelerate/accelerator.py"), 1905, "backward", "loss.backward(**kwargs)"),
        *at("conda310", BACKWARD["2.1"]),
    ], NGF)))

add(ID, "prose-ko", "ko", known("1.13"),
    "검증 함수 코드를 복붙해서 학습 루프를 만들었는데 backward에서 에러가 나요. with torch.no_grad(): 블록 안에 다 들어가 있긴 한데 그게 문제인가요?\n"
    + fence(traceback([
        (r"C:\Users\minji\Desktop\mnist\main.py", 64, "<module>", "loss.backward()"),
        *at("win", BACKWARD["1.13"]),
    ], NGF)))

add(ID, "prose-zh", "zh", known("2.0"),
    "第一个 epoch 训练正常，跑完验证之后第二个 epoch 一开始就报错。验证函数里我写了 torch.set_grad_enabled(False)，"
    "是不是没恢复导致的？\n"
    + traceback([
        ("/home/liuyang/det/tools/train.py", 150, "<module>", "main()"),
        ("/home/liuyang/det/tools/train.py", 133, "main", "train_one_epoch(model, loader, optimizer, epoch)"),
        ("/home/liuyang/det/tools/engine.py", 47, "train_one_epoch", "losses.backward()"),
        *at("conda310", BACKWARD["2.0"]),
    ], NGF))

add(ID, "line", "en", known("1.x and 2.x (unchanged)"), NGF)

add(ID, "traceback", "en", known("1.10") + "; old Colab layout",
    """
---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
<ipython-input-14-8d5e2b6f0a11> in <module>()
     19     optimizer.zero_grad()
     20     loss = torch.tensor(criterion(pred, target).item(), requires_grad=False)
---> 21     loss.backward()
     22     optimizer.step()

1 frames
/usr/local/lib/python3.7/dist-packages/torch/autograd/__init__.py in backward(tensors, grad_tensors, retain_graph, create_graph, grad_variables, inputs)
    154     Variable._execution_engine.run_backward(
    155         tensors, grad_tensors_, retain_graph, create_graph, inputs,
--> 156         allow_unreachable=True, accumulate_grad=True)  # allow_unreachable flag
    157 
    158 

RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn""")

add(ID, "truncated", "en", known("2.3") + "; only the end of the traceback, cut mid-word",
    traceback(at("conda310", BACKWARD["2.3"]),
              "RuntimeError: element 0 of tensors does not require grad and does not have a gr", header=False))

add(ID, "traceback", "en", known("2.3") + "; Lightning frames and torchrun rank prefix written by hand",
    "\n".join("[rank1]: " + line for line in traceback([
        ("/home/alice/proj/pl/train.py", 58, "<module>", "trainer.fit(model, datamodule=dm)"),
        (sp("conda310", "lightning/pytorch/trainer/trainer.py"), 543, "fit", "call._call_and_handle_interrupt("),
        (sp("conda310", "lightning/pytorch/loops/optimization/automatic.py"), 316, "backward_fn", "call._call_strategy_hook(self.trainer, \"backward\", loss, optimizer)"),
        (sp("conda310", "lightning/pytorch/core/module.py"), 1090, "backward", "loss.backward(*args, **kwargs)"),
        *at("conda310", BACKWARD["2.3"]),
    ], NGF).split("\n")))


# --- pytorch/grad-scalar -------------------------------------------------------------
ID = "pytorch/grad-scalar"
GS = "RuntimeError: grad can be implicitly created only for scalar outputs"

add(ID, "traceback", "en", RAN,
    traceback([
        ("/home/jiwoo/work/focal/train.py", 84, "<module>", "loss.backward()\n^^^^^^^^^^^^^^^"),
        *at("venv312", captured_rows("grad_scalar")),
    ], exc_line("grad_scalar")))

add(ID, "prose-en", "en", known("2.0") + "; DataParallel warning text as it prints",
    "Getting this with nn.DataParallel on 4 GPUs, the same script on one GPU works fine:\n"
    + fence(
        "/opt/conda/lib/python3.10/site-packages/torch/nn/parallel/_functions.py:68: UserWarning: Was asked to gather "
        "along dimension 0, but all input tensors were scalars; will instead unsqueeze and return a vector.\n"
        "  warnings.warn('Was asked to gather along dimension 0, but all '\n"
        + traceback([
            ("run_clm.py", 233, "train", "outputs.loss.backward()"),
            (sp("conda310", "torch/_tensor.py"), 487, "backward", "torch.autograd.backward("),
            (sp("conda310", "torch/autograd/__init__.py"), 193, "backward", "grad_tensors_ = _make_grads(tensors, grad_tensors_, is_grads_batched=False)"),
            (sp("conda310", "torch/autograd/__init__.py"), 88, "_make_grads", "raise RuntimeError(\"grad can be implicitly created only for scalar outputs\")"),
        ], GS)))

add(ID, "prose-ko", "ko", known("1.10"),
    "샘플마다 가중치를 다르게 주려고 reduction='none'으로 바꿨는데 loss.backward()에서 이게 떠요. loss 모양은 torch.Size([64]) 이에요.\n"
    "```\n  File \"train.py\", line 52, in <module>\n    loss.backward()\n"
    "  File \"/home/hyunwoo/anaconda3/envs/py38/lib/python3.8/site-packages/torch/_tensor.py\", line 307, in backward\n"
    "    torch.autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)\n"
    "  File \"/home/hyunwoo/anaconda3/envs/py38/lib/python3.8/site-packages/torch/autograd/__init__.py\", line 150, in backward\n"
    "    grad_tensors_ = _make_grads(tensors, grad_tensors_)\n"
    "  File \"/home/hyunwoo/anaconda3/envs/py38/lib/python3.8/site-packages/torch/autograd/__init__.py\", line 51, in _make_grads\n"
    "    raise RuntimeError(\"grad can be implicitly created only for scalar outputs\")\n" + GS + "\n```")

PINN_SITE = "/home/wangfei/miniconda3/lib/python3.11/site-packages"
add(ID, "prose-zh", "zh", "message and torch frames ran on torch 2.13 CPU (torch.autograd.grad on a vector); prose written by hand",
    "在写 PINN，用 torch.autograd.grad(u, x, create_graph=True) 求 u 对 x 的导数，u 是网络输出 (N,1)，直接报错：\n"
    + traceback([
        ("/home/wangfei/pinn/burgers.py", 39, "pde_residual", "u_x = torch.autograd.grad(u, x, create_graph=True)[0]\n"
                                                           "      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
        (sp(PINN_SITE, "torch/autograd/__init__.py"), 567, "grad", "grad_outputs_ = _make_grads(\n                ^^^^^^^^^^^^"),
        (sp(PINN_SITE, "torch/autograd/__init__.py"), 208, "_make_grads", "raise RuntimeError("),
    ], GS))

add(ID, "traceback", "en", known("1.13"),
    traceback([
        (r"C:\Users\minji\Desktop\regression\fit.py", 40, "<module>", "loss.backward()"),
        (sp("win", "torch/_tensor.py"), 487, "backward", "torch.autograd.backward("),
        (sp("win", "torch/autograd/__init__.py"), 190, "backward", "grad_tensors_ = _make_grads(tensors, grad_tensors_, is_grads_batched=False)"),
        (sp("win", "torch/autograd/__init__.py"), 85, "_make_grads", "raise RuntimeError(\"grad can be implicitly created only for scalar outputs\")"),
    ], GS))

add(ID, "truncated", "en", "message (unchanged since 0.4) cut mid-word", "RuntimeError: grad can be implicitly created only for scal")

add(ID, "traceback", "en", known("2.1") + "; IPython 8 output with its ANSI colour codes",
    "\x1b[0;31m---------------------------------------------------------------------------\x1b[0m\n"
    "\x1b[0;31mRuntimeError\x1b[0m                              Traceback (most recent call last)\n"
    "Cell \x1b[0;32mIn[11], line 4\x1b[0m\n"
    "\x1b[1;32m      2\x1b[0m out \x1b[38;5;241m=\x1b[39m model(xb)\n"
    "\x1b[1;32m      3\x1b[0m loss \x1b[38;5;241m=\x1b[39m (out \x1b[38;5;241m-\x1b[39m yb)\x1b[38;5;241m.\x1b[39mpow(\x1b[38;5;241m2\x1b[39m)\n"
    "\x1b[0;32m----> 4\x1b[0m \x1b[43mloss\x1b[49m\x1b[38;5;241;43m.\x1b[39;49m\x1b[43mbackward\x1b[49m\x1b[43m(\x1b[49m\x1b[43m)\x1b[49m\n\n"
    "File \x1b[0;32m~/miniconda3/envs/dl/lib/python3.11/site-packages/torch/_tensor.py:492\x1b[0m, in \x1b[0;36mTensor.backward\x1b[0;34m(self, gradient, retain_graph, create_graph, inputs)\x1b[0m\n"
    "\x1b[1;32m    490\x1b[0m         inputs\x1b[38;5;241m=\x1b[39minputs,\n"
    "\x1b[1;32m    491\x1b[0m     )\n"
    "\x1b[0;32m--> 492\x1b[0m \x1b[43mtorch\x1b[49m\x1b[38;5;241;43m.\x1b[39;49m\x1b[43mautograd\x1b[49m\x1b[38;5;241;43m.\x1b[39;49m\x1b[43mbackward\x1b[49m\x1b[43m(\x1b[49m\n"
    "\x1b[1;32m    493\x1b[0m \x1b[43m    \x1b[49m\x1b[38;5;28;43mself\x1b[39;49m\x1b[43m,\x1b[49m\x1b[43m \x1b[49m\x1b[43mgradient\x1b[49m\x1b[43m,\x1b[49m\x1b[43m \x1b[49m\x1b[43mretain_graph\x1b[49m\x1b[43m,\x1b[49m\x1b[43m \x1b[49m\x1b[43mcreate_graph\x1b[49m\x1b[43m,\x1b[49m\x1b[43m \x1b[49m\x1b[43minputs\x1b[49m\x1b[38;5;241;43m=\x1b[39;49m\x1b[43minputs\x1b[49m\n"
    "\x1b[1;32m    494\x1b[0m \x1b[43m\x1b[49m)\n\n"
    "\x1b[0;31mRuntimeError\x1b[0m: grad can be implicitly created only for scalar outputs")


# --- pytorch/numpy-requires-grad -----------------------------------------------------
ID = "pytorch/numpy-requires-grad"
NP = captured("numpy_requires_grad")["message"]

add(ID, "traceback", "en", "message ran on torch 2.13 CPU (eval/capture_messages.py); matplotlib frames written by hand",
    traceback([
        ("/home/alice/proj/vae/plot_losses.py", 31, "<module>", "plt.plot(history[\"recon\"], label=\"recon\")"),
        (sp("alice311", "matplotlib/pyplot.py"), 3578, "plot", "return gca().plot("),
        (sp("alice311", "matplotlib/axes/_axes.py"), 1721, "plot", "lines = [*self._get_lines(self, *args, data=data, **kwargs)]"),
        (sp("alice311", "matplotlib/axes/_base.py"), 303, "__call__", "yield from self._plot_args("),
        (sp("alice311", "matplotlib/axes/_base.py"), 491, "_plot_args", "y = _check_1d(xy[1])"),
        (sp("alice311", "matplotlib/cbook.py"), 1362, "_check_1d", "x = np.asanyarray(x)"),
        (sp("alice311", "torch/_tensor.py"), 1149, "__array__", "return self.numpy()"),
    ], "RuntimeError: " + NP))

add(ID, "line", "en", known("0.4-1.x"),
    "RuntimeError: Can't call numpy() on Variable that requires grad. Use var.detach().numpy() instead.")

add(ID, "prose-ko", "ko", RAN + "; scikit-learn frames written by hand",
    "평가 코드에서 f1_score 계산하는 부분에서 에러가 나요. preds는 모델 출력에 sigmoid 한 거예요.\n"
    + fence(traceback([
        ("/home/jiwoo/work/clf/evaluate.py", 48, "evaluate", "f1 = f1_score(labels, preds > 0.5, average=\"macro\")"),
        (sp("venv312", "sklearn/utils/_param_validation.py"), 216, "wrapper", "return func(*args, **kwargs)"),
        (sp("venv312", "sklearn/metrics/_classification.py"), 1301, "f1_score", "return fbeta_score("),
        (sp("venv312", "sklearn/utils/validation.py"), 1055, "check_array", "array = _asarray_with_order(array, order=order, dtype=dtype, xp=xp)"),
        (sp("venv312", "torch/_tensor.py"), 1149, "__array__", "return self.numpy()"),
    ], "RuntimeError: " + NP)))

add(ID, "prose-zh", "zh", RAN,
    "想把 softmax 之后的概率存下来做后处理，np.save('probs.npy', probs.numpy()) 这一行报错了，这个 probs 是模型输出直接算的：\n"
    "RuntimeError: " + NP)

add(ID, "traceback", "en", RAN + "; Colab layout",
    """
---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
[<ipython-input-21-77a0c3e5d2f4>](https://localhost:8080/#) in <cell line: 0>()
      1 emb = encoder(batch_images)
----> 2 tsne = TSNE(n_components=2).fit_transform(emb.numpy())
      3 plt.scatter(tsne[:, 0], tsne[:, 1], c=batch_labels)

RuntimeError: """ + NP)

add(ID, "truncated", "en", "torch 2.13 message cut near the end",
    "    arr = out.numpy()\nRuntimeError: Can't call numpy() on Tensor that requires grad. Use tens")

add(ID, "traceback", "en", known("1.13"),
    traceback([
        (r"C:\Users\minji\Desktop\retrieval\extract_features.py", 52, "<module>", "feats = np.array(feats)"),
        (sp("win", "torch/_tensor.py"), 970, "__array__", "return self.numpy()"),
    ], "RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."))
