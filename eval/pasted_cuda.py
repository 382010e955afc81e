"""Pasted errors for the GPU classes: out of memory, device and driver problems, CUDA
kernel failures, cuDNN, and half precision on the CPU. Most of these messages cannot be
raised on a CPU build; they are written from the messages PyTorch prints (see notes)."""

from __future__ import annotations

import json

from .render import (BACKWARD, CALL, CONV, CUDA_INIT, EMBEDDING, LINEAR, at, chained, exc_line, fence,
                     prefixed, rich_box, sp, traceback)
from .sample import RAN, known, known_cuda, sample

ITEMS: list[dict] = []


def add(*args) -> None:
    ITEMS.append(sample(*args))


ASYNC_2X = ("CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace "
            "below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1.\n"
            "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
ASYNC_1X = ("CUDA kernel errors might be asynchronously reported at some other API call,so the stacktrace "
            "below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1.")


# --- pytorch/cuda-oom ----------------------------------------------------------------
ID = "pytorch/cuda-oom"
FRAG_1X = ("If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  "
           "See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF")
FRAG_2X = ("If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
           "to avoid fragmentation.  See documentation for Memory Management  "
           "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")

add(ID, "traceback", "en", known_cuda("1.10-1.13"),
    traceback([
        ("tools/train.py", 221, "<module>", "main()"),
        ("tools/train.py", 188, "main", "outputs = model(images)"),
        *at("conda38", CALL["1.10"]),
        ("/workspace/cls/models/resnet.py", 97, "forward", "x = self.layer3(x)"),
        *at("conda38", CALL["1.10"]),
        *at("conda38", CONV["1.10"]),
    ], "RuntimeError: CUDA out of memory. Tried to allocate 392.00 MiB (GPU 0; 10.76 GiB total capacity; "
       "8.42 GiB already allocated; 389.56 MiB free; 9.24 GiB reserved in total by PyTorch) " + FRAG_1X))

add(ID, "prose-en", "en", known_cuda("2.0"),
    "batch size is already down to 2 and it still blows up on the 3090, fp32 UNet at 512x512\n"
    + fence(traceback([
        ("/home/alice/proj/diffusion/train_unet.py", 144, "<module>", "loss.backward()"),
        *at("alice311", BACKWARD["2.0"]),
    ], "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB (GPU 0; 23.69 GiB total "
       "capacity; 21.37 GiB already allocated; 119.06 MiB free; 22.53 GiB reserved in total by PyTorch) " + FRAG_1X)))

add(ID, "prose-zh", "zh", known_cuda("2.2-2.4"),
    "A100 80G 上全参微调 7B 模型，batch_size=1 也爆显存，开了 gradient checkpointing 也没用，日志最后是：\n"
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.95 GiB. GPU 0 has a total capacity of "
    "79.15 GiB of which 1.04 GiB is free. Process 2873 has 78.10 GiB memory in use. Of the allocated memory "
    "75.02 GiB is allocated by PyTorch, and 2.31 GiB is reserved by PyTorch but unallocated. " + FRAG_2X)

add(ID, "prose-ko", "ko", known_cuda("2.5+") + "; torchrun rank prefix",
    "4장으로 DDP 돌리는데 3번 GPU만 자꾸 메모리 부족으로 죽어요. 다른 rank는 멀쩡하고요.\n```\n"
    + prefixed(traceback([
        ("/home/hyunwoo/seg/train_ddp.py", 176, "<module>", "main(args)"),
        ("/home/hyunwoo/seg/train_ddp.py", 131, "main", "pred = model(img)"),
        *at("venv312", CALL["2.5"]),
        (sp("venv312", "torch/nn/parallel/distributed.py"), 1643, "forward", "else self._run_ddp_forward(*inputs, **kwargs)"),
    ], "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB. GPU 3 has a total capacity of "
       "23.55 GiB of which 21.81 MiB is free. Including non-PyTorch memory, this process has 23.52 GiB memory in "
       "use. Of the allocated memory 22.80 GiB is allocated by PyTorch, and 287.44 MiB is reserved by PyTorch but "
       "unallocated. " + FRAG_2X), "[rank3]: ") + "\n```")

add(ID, "line", "en", known_cuda("0.4"),
    "RuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/THCCachingAllocator.cpp:510")

add(ID, "prose-zh", "zh", known_cuda("2.2+") + "; Slack mention and link markup",
    "<@U02TROUBLE> 推理服务一到并发高就挂，报错如下，是不是要限制 batch？\n"
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 1 has a total capacity of "
    "39.39 GiB of which 2.85 GiB is free. Including non-PyTorch memory, this process has 36.53 GiB memory in use. "
    "Of the allocated memory 31.70 GiB is allocated by PyTorch, and 4.33 GiB is reserved by PyTorch but "
    "unallocated. If reserved but unallocated memory is large try setting "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
    "Management  (<https://pytorch.org/docs/stable/notes/cuda.html#environment-variables>)")

add(ID, "truncated", "en", known_cuda("2.2+") + "; Kaggle P100, cut mid-number",
    "OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 0 has a total capacity of 15.89 GiB of "
    "which 2.1")

add(ID, "traceback", "en", known_cuda("2.2+") + "; Colab layout, diffusers frame written by hand",
    """
---------------------------------------------------------------------------
OutOfMemoryError                          Traceback (most recent call last)
[<ipython-input-5-3e9d0c7a1b22>](https://localhost:8080/#) in <cell line: 0>()
----> 1 image = pipe(prompt, num_inference_steps=30, height=1024, width=1024).images[0]

13 frames
[/usr/local/lib/python3.10/dist-packages/diffusers/models/attention_processor.py](https://localhost:8080/#) in get_attention_scores(self, query, key, attention_mask)
    619             beta = 1
    620 
--> 621         attention_scores = torch.baddbmm(
    622             baddbmm_input,
    623             query,

OutOfMemoryError: CUDA out of memory. Tried to allocate 10.00 GiB. GPU 0 has a total capacity of 14.75 GiB of which 3.91 GiB is free. Process 9241 has 10.84 GiB memory in use. Of the allocated memory 6.69 GiB is allocated by PyTorch, and 4.02 GiB is reserved by PyTorch but unallocated. """ + FRAG_2X)

add(ID, "prose-en", "en", known_cuda("2.x"),
    "second training job on the same A6000 fails right at startup while the first one is running:\n"
    + traceback([
        ("finetune.py", 62, "<module>", "model = AutoModelForCausalLM.from_pretrained(args.model).to(\"cuda\")"),
        (sp("conda310", "torch/nn/modules/module.py"), 1160, "convert",
         "return t.to(device, dtype if t.is_floating_point() or t.is_complex() else None, non_blocking)"),
    ], "RuntimeError: CUDA error: out of memory\n" + ASYNC_2X))


# --- pytorch/device-mismatch ---------------------------------------------------------
ID = "pytorch/device-mismatch"

add(ID, "traceback", "en", known_cuda("1.12-2.4"),
    traceback([
        ("/home/alice/proj/tabular/train.py", 58, "<module>", "logits = model(batch_x)"),
        *at("conda310", CALL["2.0"]),
        ("/home/alice/proj/tabular/model.py", 23, "forward", "h = self.act(self.fc1(x))"),
        *at("conda310", CALL["2.0"]),
        *at("conda310", LINEAR["2.0"]),
    ], "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and "
       "cpu! (when checking argument for argument mat1 in method wrapper_CUDA_addmm)"))

add(ID, "prose-ko", "ko", known_cuda("2.5+"),
    "모델은 cuda로 옮겼는데 임베딩에서 에러가 나요. 토크나이저 출력도 .to(device) 했다고 생각했는데...\n"
    + fence(traceback([
        ("/home/jiwoo/work/ner/infer.py", 40, "<module>", "outputs = model(**enc)"),
        *at("venv312", CALL["2.5"]),
        (sp("venv312", "transformers/models/bert/modeling_bert.py"), 1078, "forward", "embedding_output = self.embeddings("),
        *at("venv312", CALL["2.5"]),
        (sp("venv312", "transformers/models/bert/modeling_bert.py"), 211, "forward", "inputs_embeds = self.word_embeddings(input_ids)"),
        *at("venv312", CALL["2.5"]),
        *at("venv312", EMBEDDING["2.1"]),
    ], "RuntimeError: Expected all tensors to be on the same device, but got index is on cpu, different from "
       "other tensors on cuda:0 (when checking argument in method wrapper_CUDA__index_select)")))

add(ID, "line", "en", known_cuda("1.x"),
    "RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same")

add(ID, "prose-zh", "zh", known_cuda("1.13-2.x"),
    "训练完保存的模型，推理脚本里图片已经 .cuda() 了，但模型我是在 CPU 上建的再 load_state_dict，报这个：\n"
    "RuntimeError: Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same "
    "or input should be a MKLDNN tensor and weight is a dense tensor")

add(ID, "prose-en", "en", known_cuda("1.4-1.5"),
    "old repo pinned to torch 1.4, fails in the first linear layer:\n"
    "RuntimeError: Expected object of device type cuda but got device type cpu for argument #1 'self' in call to _th_addmm")

add(ID, "traceback", "en", known_cuda("1.x-2.x") + "; Colab layout",
    """
---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
[<ipython-input-9-a4b7e21c0d5f>](https://localhost:8080/#) in <cell line: 0>()
      3 h0 = torch.zeros(2, x.size(0), 128)
      4 c0 = torch.zeros(2, x.size(0), 128)
----> 5 out, (hn, cn) = lstm(x.to(device), (h0, c0))

2 frames
[/usr/local/lib/python3.10/dist-packages/torch/nn/modules/rnn.py](https://localhost:8080/#) in forward(self, input, hx)
    877             self.check_forward_args(input, hx, batch_sizes)
    878             if batch_sizes is None:
--> 879                 result = _VF.lstm(input, hx, self._flat_weights, self.bias, self.num_layers,
    880                                   self.dropout, self.training, self.bidirectional, self.batch_first)
    881             else:

RuntimeError: Input and hidden tensors are not at the same device, found input tensor at cuda:0 and hidden tensor at cpu""")

add(ID, "truncated", "en", known_cuda("1.12-2.4") + ", cut mid-word",
    "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:1 and cu")

add(ID, "traceback", "en", known_cuda("2.0-2.4") + "; rich box layout, transformers warning as printed",
    "UserWarning: You are calling .generate() with the `input_ids` being on a device type different than your "
    "model's device. `input_ids` is on cpu, whereas the model is on cuda. You may experience unexpected behaviors "
    "or slower generation. Please make sure that you have put `input_ids` to the correct device by calling for "
    "example input_ids = input_ids.to('cuda') before running `.generate()`.\n"
    + rich_box([
        ("/home/alice/proj/chat/cli.py", 52, "chat", [
            (49, "    enc = tokenizer(prompt, return_tensors=\"pt\")"),
            (50, "    with torch.inference_mode():"),
            (51, "        out = model.generate("),
            (52, "            **enc, max_new_tokens=256, do_sample=True, temperature=0.7"),
            (53, "        )"),
        ]),
        (sp("conda310", "torch/nn/functional.py"), 2233, "embedding", [
            (2230, "        # remove once script supports set_grad_enabled"),
            (2231, "        _no_grad_embedding_renorm_(weight, input, max_norm, norm_type)"),
            (2232, ""),
            (2233, "    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)"),
        ]),
    ], "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and "
       "cpu! (when checking argument for argument index in method wrapper_CUDA__index_select)"))


# --- pytorch/device-side-assert ------------------------------------------------------
ID = "pytorch/device-side-assert"
NLL_ASSERT = ("../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], "
              "thread: [{t},0,0] Assertion `t >= 0 && t < n_classes` failed.")

add(ID, "traceback", "en", known_cuda("2.0+"),
    "\n".join(NLL_ASSERT.format(t=t) for t in (12, 19, 27)) + "\n"
    + traceback([
        ("/home/alice/proj/cls/train.py", 97, "<module>", "running_loss += loss.item()"),
    ], "RuntimeError: CUDA error: device-side assert triggered\n" + ASYNC_2X))

add(ID, "prose-ko", "ko", known_cuda("1.4-1.7"),
    "클래스 개수를 10개에서 9개로 줄인 다음부터 학습 시작하자마자 죽어요. CPU로 돌리면 다른 에러가 나고요.\n```\n"
    "/pytorch/aten/src/THCUNN/ClassNLLCriterion.cu:106: void cunn_ClassNLLCriterion_updateOutput_kernel(Dtype *, "
    "Dtype *, Dtype *, long *, Dtype *, int, int, int, int, long) [with Dtype = float, Acctype = float]: block: "
    "[0,0,0], thread: [7,0,0] Assertion `t >= 0 && t < n_classes` failed.\n"
    + traceback([
        ("main.py", 140, "<module>", "train(epoch)"),
        ("main.py", 88, "train", "loss.backward()"),
        ("/home/sooyeon/.local/lib/python3.6/site-packages/torch/tensor.py", 198, "backward",
         "torch.autograd.backward(self, gradient, retain_graph, create_graph)"),
        ("/home/sooyeon/.local/lib/python3.6/site-packages/torch/autograd/__init__.py", 100, "backward",
         "allow_unreachable=True)  # allow_unreachable flag"),
    ], "RuntimeError: CUDA error: device-side assert triggered") + "\n```")

add(ID, "traceback", "en", known_cuda("2.1") + "; Colab layout",
    """
../aten/src/ATen/native/cuda/Indexing.cu:1236: indexSelectSmallIndex: block: [3,0,0], thread: [64,0,0] Assertion `srcIndex < srcSelectDimSize` failed.
../aten/src/ATen/native/cuda/Indexing.cu:1236: indexSelectSmallIndex: block: [3,0,0], thread: [65,0,0] Assertion `srcIndex < srcSelectDimSize` failed.
---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
[<ipython-input-17-5c0e9a2b7f13>](https://localhost:8080/#) in <cell line: 0>()
      4     input_ids = batch["input_ids"].to(device)
      5     attention_mask = batch["attention_mask"].to(device)
----> 6     out = model(input_ids, attention_mask=attention_mask, labels=batch["labels"].to(device))
      7     out.loss.backward()

8 frames
[/usr/local/lib/python3.10/dist-packages/transformers/models/bert/modeling_bert.py](https://localhost:8080/#) in forward(self, input_ids, token_type_ids, position_ids, inputs_embeds, past_key_values_length)
    236 
    237         embeddings = inputs_embeds + token_type_embeddings
--> 238         if self.position_embedding_type == "absolute":
    239             position_embeddings = self.position_embeddings(position_ids)
    240             embeddings += position_embeddings

RuntimeError: CUDA error: device-side assert triggered
""" + ASYNC_2X)

add(ID, "line", "en", known_cuda("1.x-2.x"), "RuntimeError: CUDA error: device-side assert triggered")

add(ID, "prose-zh", "zh", known_cuda("1.9-1.13"),
    "换了一个新数据集，标签是从 1 开始编号的，跑 CrossEntropyLoss 的时候直接崩了，加了 CUDA_LAUNCH_BLOCKING=1 也看不太懂：\n"
    + traceback([
        ("train.py", 203, "<module>", "_, predicted = torch.max(outputs.data, 1)"),
    ], "RuntimeError: CUDA error: device-side assert triggered\n" + ASYNC_1X))

add(ID, "prose-en", "en", known_cuda("2.x"),
    "BCELoss on GPU. my model ends in a Linear, no sigmoid, if that matters\n"
    "../aten/src/ATen/native/cuda/Loss.cu:94: operator(): block: [51,0,0], thread: [64,0,0] Assertion "
    "`input_val >= zero && input_val <= one` failed.\n"
    "../aten/src/ATen/native/cuda/Loss.cu:94: operator(): block: [51,0,0], thread: [65,0,0] Assertion "
    "`input_val >= zero && input_val <= one` failed.\n"
    "RuntimeError: CUDA error: device-side assert triggered\n" + ASYNC_2X)

add(ID, "truncated", "en", known_cuda("2.x") + "; only the assertion lines, cut mid-word",
    "ead: [29,0,0] Assertion `t >= 0 && t < n_classes` failed.\n"
    + NLL_ASSERT.format(t=30) + "\n" + NLL_ASSERT.format(t=31)[:110])

add(ID, "traceback", "en", known_cuda("0.4-1.0"),
    "THCudaCheck FAIL file=/pytorch/aten/src/THC/generic/THCTensorCopy.cpp line=70 error=59 : device-side assert triggered\n"
    + traceback([
        ("train_seg.py", 121, "<module>", "acc = (pred == mask).float().mean().cpu().item()"),
    ], "RuntimeError: cuda runtime error (59) : device-side assert triggered at "
       "/pytorch/aten/src/THC/generic/THCTensorCopy.cpp:70"))


# --- pytorch/cuda-illegal-memory-access ----------------------------------------------
ID = "pytorch/cuda-illegal-memory-access"
IMA = "RuntimeError: CUDA error: an illegal memory access was encountered"

add(ID, "traceback", "en", known_cuda("2.1") + "; flash-attn frames written by hand",
    traceback([
        ("/home/alice/proj/llm/train.py", 301, "<module>", "loss = model(input_ids, labels=labels).loss"),
        *at("conda310", CALL["2.1"]),
        ("/home/alice/proj/llm/modeling.py", 214, "forward",
         "out = flash_attn_varlen_func(q, k, v, cu_seqlens, cu_seqlens, max_len, max_len, causal=True)"),
        (sp("conda310", "flash_attn/flash_attn_interface.py"), 1124, "flash_attn_varlen_func", "return FlashAttnVarlenFunc.apply("),
        (sp("conda310", "torch/autograd/function.py"), 539, "apply", "return super().apply(*args, **kwargs)  # type: ignore[misc]"),
        (sp("conda310", "flash_attn/flash_attn_interface.py"), 620, "forward",
         "out, q, k, v, out_padded, softmax_lse, S_dmask, rng_state = _flash_attn_varlen_forward("),
    ], IMA + "\n" + ASYNC_2X))

add(ID, "prose-ko", "ko", known_cuda("2.x"),
    "커스텀 CUDA 확장(ROI align 직접 짠 거) 쓰는데 가끔 이렇게 프로세스가 통째로 죽어요. 매번 같은 배치에서 나는 건 아니에요.\n```\n"
    "terminate called after throwing an instance of 'c10::Error'\n"
    "  what():  CUDA error: an illegal memory access was encountered\n" + ASYNC_2X + "\n\n"
    "Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:44 (most recent call first):\n"
    "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f3a1c2a4617 in /opt/conda/lib/python3.10/site-packages/torch/lib/libc10.so)\n"
    "frame #1: c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64 (0x7f3a1c25f98d in /opt/conda/lib/python3.10/site-packages/torch/lib/libc10.so)\n"
    "frame #2: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118 (0x7f3a1c36f9f8 in /opt/conda/lib/python3.10/site-packages/torch/lib/libc10_cuda.so)\n"
    "frame #3: <unknown function> + 0x1d4a0 (0x7f3a1c33a4a0 in /opt/conda/lib/python3.10/site-packages/torch/lib/libc10_cuda.so)\n"
    "frame #4: <unknown function> + 0x4c5b6e (0x7f3a6e15fb6e in /opt/conda/lib/python3.10/site-packages/torch/lib/libtorch_python.so)\n\n"
    "Aborted (core dumped)\n```")

add(ID, "prose-zh", "zh", known_cuda("1.4-1.8"),
    "用的是别人写的 DCN（可变形卷积）CUDA 实现，编译通过了，但一跑 forward 就：\n"
    "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCCachingHostAllocator.cpp line=278 error=700 : an illegal memory access was encountered\n"
    + traceback([
        ("tools/train_net.py", 89, "<module>", "loss_dict = model(images, targets)"),
        ("/home/zhang/anaconda3/envs/dcn/lib/python3.7/site-packages/torch/nn/modules/module.py", 550, "__call__",
         "result = self.forward(*input, **kwargs)"),
        ("/home/zhang/det/dcn/modules/deform_conv.py", 142, "forward", "self.dilation, self.groups, self.deformable_groups)"),
    ], IMA))

add(ID, "line", "en", known_cuda("1.x-2.x"), IMA)

add(ID, "truncated", "en", known_cuda("2.x") + ", cut mid-word", "RuntimeError: CUDA error: an illegal memory acc")

add(ID, "traceback", "en", known_cuda("2.4+") + "; torchrun rank prefixes and watchdog line",
    prefixed(traceback([
        ("/home/alice/proj/moe/train.py", 250, "<module>", "loss.backward()"),
        *at("conda310", BACKWARD["2.5"]),
    ], IMA + "\n" + ASYNC_2X), "[rank2]: ") + "\n"
    "[rank2]:[E1105 14:02:31.482017540 ProcessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank 2] Process group "
    "watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered\n"
    "W1105 14:02:33.118000 2207 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 2232 closing signal SIGTERM")

add(ID, "prose-en", "en", known_cuda("2.1-2.3") + " (torch.compile / Triton)",
    "only happens with torch.compile(mode=\"max-autotune\"), eager is fine. A100, torch 2.2.1\n"
    + fence("RuntimeError: Triton Error [CUDA]: an illegal memory access was encountered"))


# --- pytorch/cudnn-status ------------------------------------------------------------
ID = "pytorch/cudnn-status"

add(ID, "traceback", "en", known_cuda("1.10"),
    traceback([
        ("/workspace/asr/train.py", 166, "train_epoch", "loss.backward()"),
        *at("conda38", BACKWARD["1.10"]),
    ], "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED"))

add(ID, "prose-ko", "ko", known_cuda("1.13"),
    "새 서버(RTX 4090)에서 예전 conda 환경 그대로 가져와서 돌렸더니 첫 conv에서 바로 이래요. nvidia-smi는 잘 나옵니다.\n"
    + fence(traceback([
        ("/home/sooyeon/cnn/main.py", 73, "<module>", "out = net(x)"),
        *at("/home/sooyeon/miniconda3/envs/old/lib/python3.8/site-packages", CALL["1.13"]),
        *at("/home/sooyeon/miniconda3/envs/old/lib/python3.8/site-packages", CONV["1.10"]),
    ], "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED")))

add(ID, "prose-zh", "zh", known_cuda("1.8-1.13") + " with the repro dump PyTorch prints",
    "训练到一半突然报 cuDNN 的错，后面还打印了一大段复现代码，这是显卡问题还是代码问题？\n"
    "RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR\n"
    "You can try to repro this exception using the following code snippet. If that doesn't trigger the error, "
    "please include your original repro script when reporting this issue.\n\n"
    "import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\ntorch.backends.cudnn.benchmark = True\n"
    "torch.backends.cudnn.deterministic = False\ntorch.backends.cudnn.allow_tf32 = True\n"
    "data = torch.randn([16, 256, 64, 64], dtype=torch.half, device='cuda', requires_grad=True)\n"
    "net = torch.nn.Conv2d(256, 256, kernel_size=[3, 3], padding=[1, 1], stride=[1, 1], dilation=[1, 1], groups=1)\n"
    "net = net.cuda().half()\nout = net(data)\nout.backward(torch.randn_like(out))\ntorch.cuda.synchronize()\n\n"
    "ConvolutionParams \n    memory_format = Contiguous\n    data_type = CUDNN_DATA_HALF\n    padding = [1, 1, 0]\n"
    "    stride = [1, 1, 0]\n    dilation = [1, 1, 0]\n    groups = 1\n    deterministic = false\n"
    "    allow_tf32 = true\ninput: TensorDescriptor 0x7f2c1c02a3b0\n    type = CUDNN_DATA_HALF\n    nbDims = 4\n"
    "    dimA = 16, 256, 64, 64, \n    strideA = 1048576, 4096, 64, 1, \n")

add(ID, "line", "en", known_cuda("1.x"),
    "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you passed in a non-contiguous input.")

add(ID, "traceback", "en", known_cuda("1.x-2.x") + "; Colab layout",
    """
---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
[<ipython-input-11-2f6a90d1c3e8>](https://localhost:8080/#) in <cell line: 0>()
      6 for imgs, labels in train_loader:
      7     imgs, labels = imgs.cuda(), labels.cuda()
----> 8     preds = model(imgs)
      9     loss = criterion(preds, labels)

4 frames
[/usr/local/lib/python3.10/dist-packages/torch/nn/modules/conv.py](https://localhost:8080/#) in _conv_forward(self, input, weight, bias)
    454                             weight, bias, self.stride,
    455                             _pair(0), self.dilation, self.groups)
--> 456         return F.conv2d(input, weight, bias, self.stride,
    457                         self.padding, self.dilation, self.groups)
    458 

RuntimeError: cuDNN error: CUDNN_STATUS_MAPPING_ERROR""")

add(ID, "truncated", "en", known_cuda("1.x-2.x") + ", cut mid-word", "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAI")

add(ID, "prose-en", "en", known_cuda("1.7+"),
    "conv3d video model, fails on rank 0 only, first iteration:\n"
    + prefixed(traceback([
        ("/home/alice/proj/video/train.py", 118, "<module>", "clip_feats = backbone(clips)"),
        *at("conda310", CALL["2.1"]),
        (sp("conda310", "torch/nn/modules/conv.py"), 610, "forward", "return self._conv_forward(input, self.weight, self.bias)"),
        (sp("conda310", "torch/nn/modules/conv.py"), 605, "_conv_forward", "return F.conv3d("),
    ], "RuntimeError: Unable to find a valid cuDNN algorithm to run convolution"), "[rank0]: "))


# --- pytorch/cuda-not-available ------------------------------------------------------
ID = "pytorch/cuda-not-available"

add(ID, "traceback", "en", RAN,
    traceback([
        (r"C:\Users\minji\Desktop\yolo-test\detect.py", 19, "<module>", "img = img.cuda()"),
        *at("win", CUDA_INIT["2.13"]),
    ], exc_line("cuda_not_compiled")))

add(ID, "prose-ko", "ko", known_cuda("1.x-2.x"),
    "도커 컨테이너 안에서 학습 돌리려는데 GPU를 못 찾는대요. 호스트에서는 nvidia-smi 잘 되고요. docker run 옵션 문제일까요?\n"
    + fence(traceback([
        ("/workspace/train.py", 31, "<module>", "model = model.to(\"cuda\")"),
        *at("conda310", [("torch/nn/modules/module.py", 1145, "to", "return self._apply(convert)"),
                         ("torch/nn/modules/module.py", 797, "_apply", "module._apply(fn)"),
                         ("torch/nn/modules/module.py", 820, "_apply", "param_applied = fn(param)"),
                         ("torch/nn/modules/module.py", 1143, "convert",
                          "return t.to(device, dtype if t.is_floating_point() or t.is_complex() else None, non_blocking)"),
                         ("torch/cuda/__init__.py", 247, "_lazy_init", "torch._C._cuda_init()")]),
    ], "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
       "installed a driver from http://www.nvidia.com/Download/index.aspx")))

add(ID, "prose-zh", "zh", "message from torch 2.13's serialization.py (raised when no CUDA is present); frames written for 2.0",
    "同事在服务器上训练好的 .pth，我在自己的 MacBook 上 torch.load 就报错：\n"
    + traceback([
        ("/Users/wei/code/demo/app.py", 12, "<module>", "ckpt = torch.load(\"best_model.pth\")"),
        (sp("mac", "torch/serialization.py"), 809, "load", "return _load(opened_zipfile, map_location, pickle_module, **pickle_load_args)"),
        (sp("mac", "torch/serialization.py"), 1172, "_load", "result = unpickler.load()"),
        (sp("mac", "torch/serialization.py"), 1142, "persistent_load", "typed_storage = load_tensor(dtype, nbytes, key, _maybe_decode_ascii(location))"),
        (sp("mac", "torch/serialization.py"), 1116, "load_tensor", "wrap_storage=restore_location(storage, location),"),
        (sp("mac", "torch/serialization.py"), 217, "default_restore_location", "result = fn(storage, location)"),
        (sp("mac", "torch/serialization.py"), 182, "_cuda_deserialize", "device = validate_cuda_device(location)"),
        (sp("mac", "torch/serialization.py"), 166, "validate_cuda_device", "raise RuntimeError('Attempting to deserialize object on a CUDA '"),
    ], "RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. "
       "If you are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') "
       "to map your storages to the CPU."))

add(ID, "traceback", "en", known_cuda("1.x-2.x") + "; Colab layout (CPU runtime)",
    """
---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
[<ipython-input-3-8b1f5c2e7d90>](https://localhost:8080/#) in <cell line: 0>()
      1 device = torch.device("cuda")
----> 2 model = Net().to(device)

3 frames
[/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py](https://localhost:8080/#) in _lazy_init()
    300         if "CUDA_MODULE_LOADING" not in os.environ:
    301             os.environ["CUDA_MODULE_LOADING"] = "LAZY"
--> 302         torch._C._cuda_init()
    303         # Some of the queued calls may reentrantly call _lazy_init();
    304         # we need to just return without initializing in that case.

RuntimeError: No CUDA GPUs are available""")

add(ID, "line", "en", RAN, exc_line("cuda_not_compiled"))

add(ID, "prose-en", "en", known_cuda("1.x-2.x"),
    "our lab machine still has the 450 driver, installed the latest torch with pip and now:\n"
    "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU "
    "driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx "
    "Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with your "
    "version of the CUDA driver.")

add(ID, "truncated", "en", "torch 2.13 message cut mid-word", "AssertionError: Torch not compiled with CUDA ena")

add(ID, "prose-en", "en", RAN + "; a JSON log line as a log shipper stores it (escaped quotes and backslashes)",
    "from our inference service logs, started after the new image was deployed on the Windows box:\n"
    + json.dumps({
        "time": "2024-11-05T09:14:22.481Z", "level": "ERROR", "logger": "inference.server",
        "msg": "model load failed",
        "exc_info": traceback([
            (r"C:\Users\svc_ml\app\server.py", 41, "load_model", "model = model.cuda()"),
            (r"C:\Users\svc_ml\app\.venv\Lib\site-packages\torch\nn\modules\module.py", 1050, "cuda",
             "return self._apply(lambda t: t.cuda(device))"),
            *at(r"C:\Users\svc_ml\app\.venv\Lib\site-packages", CUDA_INIT["2.13"]),
        ], exc_line("cuda_not_compiled")),
    }))


# --- pytorch/half-not-implemented ----------------------------------------------------
ID = "pytorch/half-not-implemented"

add(ID, "prose-en", "en", known("2.0-2.1"),
    "trying to run llama-2-7b on a CPU-only box with torch_dtype=torch.float16, fails on the first token:\n"
    + fence(traceback([
        ("run_cpu.py", 27, "<module>", "out = model.generate(**inputs, max_new_tokens=64)"),
        (sp("alice311", "transformers/models/llama/modeling_llama.py"), 386, "forward", "query_states = self.q_proj(hidden_states)"),
        *at("alice311", CALL["2.1"]),
        *at("alice311", LINEAR["2.0"]),
    ], "RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'")))

add(ID, "prose-ko", "ko", known("1.13-2.1"),
    "그래픽카드 없는 노트북에서 스테이블 디퓨전 돌려보려는데 이렇게 나와요. 웹UI 말고 diffusers로 직접 돌리는 중이에요.\n"
    + fence(traceback([
        (r"C:\Users\minji\sd\gen.py", 14, "<module>", "image = pipe(\"a cat astronaut, digital art\").images[0]"),
        (sp("win", "transformers/models/clip/modeling_clip.py"), 383, "forward", "hidden_states = self.layer_norm1(hidden_states)"),
        *at("win", CALL["1.13"]),
        (sp("win", "torch/nn/modules/normalization.py"), 190, "forward", "return F.layer_norm("),
        (sp("win", "torch/nn/functional.py"), 2515, "layer_norm",
         "return torch.layer_norm(input, normalized_shape, weight, bias, eps, torch.backends.cudnn.enabled)"),
    ], "RuntimeError: \"LayerNormKernelImpl\" not implemented for 'Half'")))

add(ID, "prose-zh", "zh", known("1.x-2.1"),
    "Colab 没分到 GPU，就用 CPU 跑了一下之前 .half() 过的 ResNet，结果：\n"
    "RuntimeError: \"slow_conv2d_cpu\" not implemented for 'Half'\n这个是不是 CPU 不支持半精度？")

add(ID, "line", "en", RAN, exc_line("half_cdist"))

add(ID, "traceback", "en", known("1.x") + "; rich box layout",
    rich_box([
        ("/home/alice/proj/kd/distill.py", 88, "distill_step", [
            (86, "        with torch.no_grad():"),
            (87, "            t_logits = teacher(x.half())"),
            (88, "        loss = kd_loss(F.log_softmax(s_logits / T, dim=-1),"),
            (89, "                       F.softmax(t_logits / T, dim=-1))"),
        ]),
        (sp("conda38", "torch/nn/functional.py"), 1768, "log_softmax", [
            (1766, "        ret = input.log_softmax(dim)"),
            (1767, "    else:"),
            (1768, "        ret = input.log_softmax(dim, dtype=dtype)"),
            (1769, "    return ret"),
        ]),
    ], "RuntimeError: \"log_softmax_lastdim_kernel_impl\" not implemented for 'Half'"))

add(ID, "truncated", "en", known("2.0-2.1") + ", cut mid-word", "RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Ha")

add(ID, "traceback", "en", known("2.1") + "; chained: the GPU runs out of memory, the fallback on the CPU fails",
    chained(
        traceback([
            ("/srv/summarizer/worker.py", 66, "summarize", "ids = model.generate(**enc.to(\"cuda\"), max_new_tokens=200)"),
            (sp("conda310", "transformers/models/t5/modeling_t5.py"), 560, "forward", "scores = torch.matmul(query_states, key_states.transpose(3, 2))"),
        ], "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 768.00 MiB. GPU 0 has a total "
           "capacity of 15.77 GiB of which 301.44 MiB is free. Including non-PyTorch memory, this process has "
           "15.47 GiB memory in use. Of the allocated memory 14.62 GiB is allocated by PyTorch, and 502.81 MiB is "
           "reserved by PyTorch but unallocated."),
        traceback([
            ("/srv/summarizer/worker.py", 70, "summarize", "ids = model.cpu().generate(**enc.to(\"cpu\"), max_new_tokens=200)"),
            (sp("conda310", "transformers/models/t5/modeling_t5.py"), 540, "forward", "query_states = shape(self.q(hidden_states))"),
            *at("conda310", CALL["2.1"]),
            *at("conda310", LINEAR["2.0"]),
        ], "RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'")))
