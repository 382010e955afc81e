"""Long-tail pasted errors about shapes and sizes: convolution channels and rank, broadcasting,
stack/cat, reshape/expand, dimensions, kernels, batch norm, loss targets, RNNs, packing,
gather, one_hot and index dtypes."""

from __future__ import annotations

from .longtail_common import (RAN, RAN_FRAMES, known, line, msg, ran, rows, thread, thread_tb, warning)
from .render import CALL, at, fence, slack_escape, sp, traceback
from .sample import sample

ITEMS: list[dict] = []


def add(*args) -> None:
    ITEMS.append(sample(*args))


# --- pytorch/conv-input-channels ------------------------------------------------------
ID = "pytorch/conv-input-channels"

add(ID, "traceback", "en", RAN_FRAMES,
    traceback([
        ("/home/jiwoo/work/mnist-cnn/train.py", 58, "<module>", "logits = model(images)\n         ^^^^^^^^^^^^^"),
        *at("venv312", CALL["2.13"]),
        ("/home/jiwoo/work/mnist-cnn/net.py", 22, "forward", "x = self.stem(x)\n    ^^^^^^^^^^^^"),
        *at("venv312", rows("conv_channels_gray")),
    ], line("conv_channels_gray")))

add(ID, "line", "en", thread("https://github.com/avBuffer/UNet3plus_pth/issues/19"),
    "RuntimeError: Given groups=1, weight of size [64, 3, 3, 3], expected input[1, 1, 256, 256] to have 3 channels, but got 1 channels instead")

add(ID, "prose-en", "en", thread("https://github.com/midasklr/facelandmarks/issues/4",
                                 "root cause: an HWC image fed to a conv that wants CHW"),
    "ran the landmark demo on a single photo loaded with cv2.imread and got\n"
    "RuntimeError: Given groups=1, weight of size [10, 3, 3, 3], expected input[1, 361, 424, 3] to have 3 channels, but got 361 channels instead\n"
    "361 is the height of my picture?? why does it think that's channels")

add(ID, "prose-ko", "ko", thread("https://github.com/open-mmlab/mmsegmentation/issues/2330"),
    "흑백 의료영상이라 in_channels=1로 설정했는데 학습 시작하자마자 이렇게 나와요. 파이프라인에서 이미지를 컬러로 읽는 것 같기도 하고요.\n"
    "```\nRuntimeError: Given groups=1, weight of size [32, 1, 3, 3], expected input[4, 3, 320, 220] to have 1 channels, but got 3 channels instead\n```")

add(ID, "prose-zh", "zh", thread("https://github.com/XPixelGroup/DiffBIR/issues/90"),
    "训练一开始就报错，输入是普通的 RGB 图，模型第一层好像要 4 通道：\n"
    "RuntimeError: Given groups=1, weight of size [4, 4, 1, 1], expected input[1, 3, 512, 512] to have 4 channels, but got 3 channels instead")

add(ID, "traceback", "en", ran("Colab layout; image shape changed to NHWC"),
    """
---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
[<ipython-input-14-9f1c2be07a3d>](https://localhost:8080/#) in <cell line: 0>()
      2 batch = torch.from_numpy(np.stack(frames)).float() / 255.
----> 3 out = resnet(batch)

6 frames
[/usr/local/lib/python3.11/dist-packages/torch/nn/modules/conv.py](https://localhost:8080/#) in _conv_forward(self, input, weight, bias)
    558                 self.groups,
    559             )
--> 560         return F.conv2d(
    561             input, weight, bias, self.stride, self.padding, self.dilation, self.groups
    562         )

RuntimeError: """ + msg("conv_channels_nhwc"))

add(ID, "truncated", "en", thread("https://github.com/Comfy-Org/ComfyUI/issues/6419", "only the end kept"),
    "...expected input[1, 16, 128, 128] to have 4 channels, but got 16 channels instead")

add(ID, "prose-en", "en", known("0.4", "Slack mention and code fence"),
    "<@U05TORCHBOT> old repo pinned to torch 0.4, grayscale MNIST into a pretrained resnet:\n"
    "```RuntimeError: Given groups=1, weight[64, 3, 7, 7], so expected input[32, 1, 28, 28] to have 3 channels, but got 1 channels instead```")

add(ID, "traceback", "en", thread("https://github.com/zshuai8/FedGMM_ICML2023/issues/2",
                                  "message as pasted; timm frames and paths written by hand"),
    traceback([
        ("/data/fed/FedGMM/train.py", 211, "<module>", "outputs = learner.model(x)"),
        *at("conda310", CALL["2.0"]),
        ("/opt/conda/lib/python3.10/site-packages/timm/models/resnet.py", 541, "forward", "x = self.forward_features(x)"),
        ("/opt/conda/lib/python3.10/site-packages/timm/models/resnet.py", 520, "forward_features", "x = self.conv1(x)"),
        *at("conda310", CALL["2.0"]),
        *at("conda310", [("torch/nn/modules/conv.py", 463, "forward", "return self._conv_forward(input, self.weight, self.bias)"),
                         ("torch/nn/modules/conv.py", 459, "_conv_forward", "return F.conv2d(input, weight, bias, self.stride,")]),
    ], "RuntimeError: Given groups=1, weight of size [32, 3, 3, 3], expected input[128, 32, 32, 3] to have 3 channels, but got 32 channels instead"))


# --- pytorch/broadcast-size-mismatch --------------------------------------------------
ID = "pytorch/broadcast-size-mismatch"

add(ID, "line", "en", RAN, line("broadcast_add"))

add(ID, "traceback", "en", ran("PyTorch frames of F.mse_loss as 2.13 printed them"),
    traceback([
        ("/home/alice/proj/forecast/train.py", 97, "train_epoch", "loss = F.mse_loss(pred, target)"),
        *at("alice311", rows("broadcast_mse")),
    ], line("broadcast_mse")))

add(ID, "prose-en", "en", thread("https://github.com/pytorch/pytorch/issues/9446"),
    "PIFu in colab works on the sample photo but with my own picture it dies with\n"
    "RuntimeError: The size of tensor a (245) must match the size of tensor b (244) at non-singleton dimension 2\n"
    "do I have to resize the image to something specific?")

add(ID, "prose-ko", "ko", thread("https://github.com/speechbrain/speechbrain/issues/827"),
    "2분 정도 되는 음성 파일을 넣으면 이 에러가 나고 짧은 파일은 잘 돼요. 길이 제한이 있는 건가요?\n"
    "RuntimeError: The size of tensor a (2865) must match the size of tensor b (2500) at non-singleton dimension 1")

add(ID, "prose-zh", "zh", thread("https://github.com/S-aiueo32/lpips-pytorch/issues/15"),
    "算 LPIPS 的时候两张图尺寸不一样，报：The size of tensor a (185) must match the size of tensor b (63) at non-singleton dimension 3 该怎么处理？")

add(ID, "traceback", "en", thread_tb("https://github.com/philipy1219/ComfyUI-TaylorSeer/issues/22",
                                     "frame above the carets written by hand"),
    fence('''  File "/home/rj/ComfyUI/custom_nodes/ComfyUI-TaylorSeer/taylorseer_utils.py", line 61, in taylor_formula
    output = output + (1 / math.factorial(i)) * cache_dic['cache'][-1][current['stream']][current['layer']][current['module']][i] * (x ** i)
                     ~~~~~~~~~~~~~~~~~~~~~~~~~~^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
RuntimeError: The size of tensor a (4015) must match the size of tensor b (8030) at non-singleton dimension 1'''))

add(ID, "truncated", "en", thread("https://github.com/jiwei0921/DMRA/issues/5", "cut mid-message"),
    "RuntimeError: The size of tensor a (150) must match the size of tensor b (152) at non-singl")

add(ID, "traceback", "en", thread("https://github.com/Qihoo360/360-LLaMA-Factory/issues/62",
                                  "message as pasted; transformers frames written by hand (a hard case: raised inside transformers)"),
    traceback([
        ("/mnt/workspace/LLaMA-Factory/src/llamafactory/train/sft/workflow.py", 96, "run_sft",
         "train_result = trainer.train(resume_from_checkpoint=training_args.resume_from_checkpoint)"),
        ("/opt/conda/lib/python3.10/site-packages/transformers/trainer.py", 2241, "train", "return inner_training_loop("),
        ("/opt/conda/lib/python3.10/site-packages/transformers/models/qwen2/modeling_qwen2.py", 299, "forward",
         "attn_weights = attn_weights + causal_mask"),
    ], "RuntimeError: The size of tensor a (16648) must match the size of tensor b (16384) at non-singleton dimension 2"))

add(ID, "prose-en", "en", known("1.x-2.x"),
    "masked loss in a seq2seq model, `loss = (out - y) * mask` where the mask was built from the source lengths, not the target's:\n"
    "RuntimeError: The size of tensor a (10) must match the size of tensor b (12) at non-singleton dimension 1")

add(ID, "traceback", "en", thread("https://github.com/Comfy-Org/ComfyUI/issues/7444",
                                  "message as pasted; ComfyUI frames written by hand; Slack-escaped"),
    "<@U05TORCHBOT> " + slack_escape(fence(traceback([
        ("D:\\ComfyUI_windows_portable\\ComfyUI\\main.py", 313, "<module>", "event_loop.run_until_complete(x)"),
        ("D:\\ComfyUI_windows_portable\\ComfyUI\\execution.py", 327, "execute",
         "output_data, output_ui, has_subgraph = get_output_data(obj, input_data_all, execution_block_cb=execution_block_cb, pre_execute_cb=pre_execute_cb)"),
        ("D:\\ComfyUI_windows_portable\\ComfyUI\\comfy\\ldm\\wan\\model.py", 467, "forward_orig", "e = self.time_embedding(sinusoidal_embedding_1d(self.freq_dim, t).to(dtype=x[0].dtype))"),
        ("D:\\ComfyUI_windows_portable\\ComfyUI\\comfy\\ldm\\wan\\model.py", 214, "forward", "x = x + y * e[2]"),
    ], "RuntimeError: The size of tensor a (81) must match the size of tensor b (16) at non-singleton dimension 1"))))


# --- pytorch/stack-unequal-size --------------------------------------------------------
ID = "pytorch/stack-unequal-size"

add(ID, "traceback", "en", thread_tb("https://github.com/Suanmd/TR-MISR/issues/3", "Windows, DataLoader worker"),
    r'''Traceback (most recent call last):
  File "C:\Users\user\Desktop\TR-MISR-master\src\train.py", line 302, in <module>
    main(config)
RuntimeError: Caught RuntimeError in DataLoader worker process 0.
Original Traceback (most recent call last):
  File "C:\Users\user\anaconda3\envs\endo\lib\site-packages\torch\utils\data\_utils\worker.py", line 302, in _worker_loop
    data = fetcher.fetch(index)
  File "C:\Users\user\anaconda3\envs\endo\lib\site-packages\torch\utils\data\_utils\fetch.py", line 52, in fetch
    return self.collate_fn(data)
  File "C:\Users\user\Desktop\TR-MISR-master\src\utils.py", line 65, in __call__
    return self.collateFunction(batch)
  File "C:\Users\user\Desktop\TR-MISR-master\src\utils.py", line 118, in collateFunction
    padded_lr_batch = torch.stack(lr_batch, dim=0)
RuntimeError: stack expects each tensor to be equal size, but got [24, 32, 64] at entry 0 and [24, 64, 32] at entry 1''')

add(ID, "traceback", "en", thread_tb("https://github.com/bghira/SimpleTuner/issues/59", "raised through accelerate"),
    '''Traceback (most recent call last):
  File "/root/SimpleTuner/train_sdxl.py", line 1343, in <module>
    main()
  File "/root/SimpleTuner/train_sdxl.py", line 858, in main
    for step, batch in enumerate(train_dataloader):
  File "/root/SimpleTuner/.venv/lib/python3.10/site-packages/accelerate/data_loader.py", line 394, in __iter__
    next_batch = next(dataloader_iter)
  File "/root/SimpleTuner/.venv/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 633, in __next__
    data = self._next_data()
  File "/root/SimpleTuner/.venv/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 677, in _next_data
    data = self._dataset_fetcher.fetch(index)  # may raise StopIteration
  File "/root/SimpleTuner/.venv/lib/python3.10/site-packages/torch/utils/data/_utils/fetch.py", line 54, in fetch
    return self.collate_fn(data)
  File "/root/SimpleTuner/train_sdxl.py", line 617, in <lambda>
    collate_fn=lambda examples: collate_fn(examples),
  File "/root/SimpleTuner/train_sdxl.py", line 559, in collate_fn
    pixel_values = torch.stack(latents)
RuntimeError: stack expects each tensor to be equal size, but got [4, 128, 170] at entry 0 and [4, 96, 128] at entry 2''')

add(ID, "traceback", "en", thread_tb("https://github.com/rasbt/LLMs-from-scratch/issues/365", "Colab layout"),
    """RuntimeError                              Traceback (most recent call last)
[<ipython-input-81-5551546cf2e9>](https://localhost:8080/#) in <cell line: 7>()
      5 
      6 data_iter = iter(dataloader)
----> 7 inputs, targets = next(data_iter)
      8 print("Inputs:\\n", inputs)
      9 print("\\nTargets:\\\\n", targets)

7 frames
[/usr/local/lib/python3.10/dist-packages/torch/utils/data/_utils/collate.py](https://localhost:8080/#) in collate_tensor_fn(batch, collate_fn_map)
    212         storage = elem._typed_storage()._new_shared(numel, device=elem.device)
    213         out = elem.new(storage).resize_(len(batch), *list(elem.size()))
--> 214     return torch.stack(batch, 0, out=out)
    215 
    216 

RuntimeError: stack expects each tensor to be equal size, but got [5] at entry 0 and [1] at entry 1""")

add(ID, "line", "en", RAN, line("stack_images"))

add(ID, "prose-en", "en", thread("https://github.com/abhishekkrthakur/captcha-recognition-pytorch/issues/1",
                                 "labels of different lengths"),
    "captcha dataset where some labels have 6 characters and some 7, the loop over the dataloader crashes:\n"
    "RuntimeError: stack expects each tensor to be equal size, but got [7] at entry 0 and [6] at entry 1")

add(ID, "prose-ko", "ko", thread("https://github.com/milesial/Pytorch-UNet/issues/285"),
    "batch_size=1일 때는 되는데 4로 올리면 첫 배치에서 바로 에러가 나요. 이미지 크기가 다 제각각이긴 해요.\n"
    "```\nRuntimeError: stack expects each tensor to be equal size, but got [3, 544, 386] at entry 0 and [3, 794, 586] at entry 1\n```")

add(ID, "prose-zh", "zh", thread("https://github.com/nizhenliang/RAUNet/issues/2"),
    "用自己的数据集跑 train.py，第 0 个 epoch 就报错，load_dataset.py 里没有统一 resize：\n"
    "RuntimeError: stack expects each tensor to be equal size, but got [3, 244, 320] at entry 0 and [3, 304, 400] at entry 2")

add(ID, "truncated", "en", thread("https://github.com/open-edge-platform/anomalib/issues/1862",
                                  "only the end of a rich traceback (Windows)"),
    """│ ❱ 1371 │   │   │   data.reraise()                                                                │
│   1372 │   │   return data                                                                       │
╰──────────────────────────────────────────────────────────────────────────────────────────────────╯
RuntimeError: stack expects each tensor to be equal size, but got [224, 224] at entry 0 and [3, 224, 224] at entry 29""")

add(ID, "traceback", "en", thread_tb("https://github.com/Suanmd/TR-MISR/issues/7", "Linux, python 3.6, only the worker part"),
    '''  File "/home/uzma/.local/lib/python3.6/site-packages/torch/_utils.py", line 434, in reraise
    raise exception
RuntimeError: Caught RuntimeError in DataLoader worker process 0.
Original Traceback (most recent call last):
  File "/home/uzma/.local/lib/python3.6/site-packages/torch/utils/data/_utils/worker.py", line 287, in _worker_loop
    data = fetcher.fetch(index)
  File "/home/uzma/.local/lib/python3.6/site-packages/torch/utils/data/_utils/fetch.py", line 52, in fetch
    return self.collate_fn(data)
  File "/home/uzma/TR-MISR/src/utils.py", line 65, in __call__
    return self.collateFunction(batch)
  File "/home/uzma/TR-MISR/src/utils.py", line 114, in collateFunction
    padded_lr_batch = torch.stack(lr_batch, dim=0)
RuntimeError: stack expects each tensor to be equal size, but got [24, 32, 32] at entry 0 and [24, 32, 64] at entry 1''')

add(ID, "prose-en", "en", known("1.5-1.13", "Jupyter layout, default_collate frames of 1.x"),
    "my text dataset returns input_ids without padding, works with batch_size=1 only\n"
    """---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
Cell In[7], line 1
----> 1 batch = next(iter(train_loader))

File ~/miniconda3/envs/nlp/lib/python3.9/site-packages/torch/utils/data/_utils/collate.py:141, in default_collate(batch)
    139         storage = elem.storage()._new_shared(numel, device=elem.device)
    140         out = elem.new(storage).resize_(len(batch), *list(elem.size()))
--> 141     return torch.stack(batch, 0, out=out)

RuntimeError: stack expects each tensor to be equal size, but got [37] at entry 0 and [52] at entry 1""")

add(ID, "prose-zh", "zh", known("1.5-2.x", "shapes made up; the situation follows https://github.com/uni-medical/SAM-Med3D/issues/16, whose paste was a screenshot"),
    "训练肝脏肿瘤数据，跑到 9/64 的时候挂了，每个 volume 的尺寸不一样：\n"
    "RuntimeError: stack expects each tensor to be equal size, but got [1, 128, 128, 128] at entry 0 and [1, 128, 128, 96] at entry 1")


# --- pytorch/cat-size-mismatch ---------------------------------------------------------
ID = "pytorch/cat-size-mismatch"

add(ID, "traceback", "en", thread("https://github.com/Beckschen/TransUNet/issues/74",
                                  "message and failing line as pasted; other frames written by hand"),
    traceback([
        ("/home/venshow/TransUNet/train.py", 95, "<module>", "trainer[dataset_name](args, net, snapshot_path)"),
        ("/home/venshow/TransUNet/trainer.py", 65, "trainer_synapse", "outputs = model(image_batch)"),
        *at("conda38", CALL["1.10"]),
        ("/home/venshow/TransUNet/networks/vit_seg_modeling.py", 400, "forward", "x = torch.cat([x, skip], dim=1)"),
    ], "RuntimeError: Sizes of tensors must match except in dimension 1. Expected size 32 but got size 64 for tensor number 1 in the list."))

add(ID, "line", "en", RAN, line("cat_channels"))

add(ID, "prose-zh", "zh", thread("https://github.com/XinyiYing/LESPS/issues/10"),
    "训练到第 30 到 50 个 epoch 之间随机报错，打印发现 x0_0 是 [1, 16, 197, 320]，上采样后是 [1, 32, 196, 320]：\n"
    "x0_1 = self.conv0_1(torch.cat([x0_0, self.up(x1_0)], 1))\n"
    "RuntimeError: Sizes of tensors must match except in dimension 1. Expected size 197 but got size 196 for tensor number 1 in the list.")

add(ID, "prose-en", "en", thread("https://github.com/hlky/nataili/issues/145", "a prompt longer than 77 tokens"),
    "long prompts break generation, short ones are fine:\n```\n    cond_in = torch.cat([uncond, cond])\n"
    "RuntimeError: Sizes of tensors must match except in dimension 0. Expected size 77 but got size 154 for tensor number 1 in the list.\n```")

add(ID, "traceback", "en", thread_tb("https://github.com/bmaltais/kohya_ss/issues/1215", "rich box as pasted, trimmed"),
    """RuntimeError: Sizes of tensors must match except in dimension 1. Expected size 56 but got size 55 for tensor number 1 in the list.
steps:   0%|                                                                   | 0/300 [00:03<?, ?it/s, loss=0.0245]
╭─────────────────────────────── Traceback (most recent call last) ────────────────────────────────╮
│ /workspace/kohya_ss/venv/bin/accelerate:8 in <module>                                            │
│                                                                                                  │
│   5 from accelerate.commands.accelerate_cli import main                                          │
│   6 if __name__ == '__main__':                                                                   │
│   7 │   sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])                         │
│ ❱ 8 │   sys.exit(main())                                                                         │
│   9                                                                                              │
╰──────────────────────────────────────────────────────────────────────────────────────────────────╯""")

add(ID, "prose-ko", "ko", thread("https://github.com/lyuwenyu/RT-DETR/issues/189"),
    "입력 해상도를 640에서 860으로 바꿨더니 FPN에서 concat할 때 크기가 하나 차이 나요.\n"
    "inner_out = self.fpn_blocks[len(self.in_channels) - 1 - idx](torch.cat([upsample_feat, feat_low], dim=1))\n"
    "RuntimeError: Sizes of tensors must match except in dimension 1. Expected size 108 but got size 107 for tensor number 1 in the list.")

add(ID, "truncated", "en", thread("https://github.com/luost26/score-denoise/issues/20", "only the last frame"),
    '''  File "train.py", line 147, in validate
    all_clean = torch.cat(all_clean, dim=0)
RuntimeError: Sizes of tensors must match except in dimension 0. Expected size 37712 but got size 31882 for tensor number 1 in the list.''')

add(ID, "prose-en", "en", known("1.7-1.9"),
    "U-Net with 572x572 input, skip connection concat fails on torch 1.8:\n"
    "RuntimeError: Sizes of tensors must match except in dimension 1. Got 56 and 57 in dimension 2 (The offending index is 1)")

add(ID, "traceback", "en", known("1.0-1.4"),
    traceback([
        ("train.py", 88, "<module>", "out = net(img)"),
        *at("/home/kim/.conda/envs/torch14/lib/python3.7/site-packages", CALL["1.4"]),
        ("/home/kim/seg/unet.py", 41, "forward", "x = torch.cat([x2, x1], dim=1)"),
    ], "RuntimeError: invalid argument 0: Sizes of tensors must match except in dimension 1. Got 14 and 13 in dimension 2 at /pytorch/aten/src/TH/generic/THTensor.cpp:612"))


# --- pytorch/reshape-invalid-size -------------------------------------------------------
ID = "pytorch/reshape-invalid-size"

add(ID, "traceback", "en", thread_tb("https://github.com/xulianuwa/MCTformer/issues/29"),
    '''Traceback (most recent call last):
  File "main.py", line 333, in <module>
    main(args)
  File "main.py", line 247, in main
    pos_tokens = pos_tokens.reshape(-1, orig_size, orig_size, embedding_size).permute(0, 3, 1, 2)
RuntimeError: shape '[-1, 13, 13, 384]' is invalid for input of size 67968''')

add(ID, "line", "en", RAN, line("reshape_view"))

add(ID, "prose-en", "en", ran("the classic flatten-after-conv mistake"),
    "LeNet on 32x32 inputs works, on 28x28 MNIST the flatten line blows up. I hard-coded 16*4*4 there:\n"
    "RuntimeError: " + msg("reshape_flatten"))

add(ID, "traceback", "en", thread_tb("https://github.com/ashutosh1807/PixelFormer/issues/18",
                                     "VS Code debugger layout (most recent call first)"),
    '''Exception has occurred: RuntimeError
shape '[16, 34, 34, 512]' is invalid for input of size 8921088
  File "/home/data1/huwl/Height_Estimation/im2height-sar/PixelFormerDir/SAM.py", line 212, in forward
    v = v.view(B, H, W, C)
  File "/home/data1/huwl/Height_Estimation/im2height-sar/PixelFormerDir/SAM.py", line 304, in forward
    q_out, H, W = self.sam_block(q, e, Wh, Ww)
  File "/home/data1/huwl/Height_Estimation/im2height-sar/PixelFormer.py", line 146, in forward
    q2 = self.sam3(enc_feats[2], q3)
  File "/home/data1/huwl/Height_Estimation/im2height-sar/predict.py", line 33, in run
    predictions = model(tensors)
  File "/home/data1/huwl/Height_Estimation/im2height-sar/predict.py", line 62, in <module>
    run(**vars(args))
RuntimeError: shape '[16, 34, 34, 512]' is invalid for input of size 8921088''')

add(ID, "prose-ko", "ko", thread("https://github.com/HVision-NKU/SRFormer/issues/34"),
    "SRFormer 재현 중인데 윈도우 파티션에서 에러나요. 입력이 35x35라서 window_size로 안 나눠떨어지는 것 같아요.\n"
    "    x = x.view(b, h // window_size, window_size, w // window_size, window_size, c)\n"
    "RuntimeError: shape '[1, 11, 3, 11, 3, 1]' is invalid for input of size 1225")

add(ID, "prose-zh", "zh", thread("https://github.com/donahowe/AutoStudio/issues/39"),
    "注意力处理器里 reshape 出错，token 数不是正方形：\n"
    "cond = cond.reshape(cond.shape[0], height, width, cond.shape[2])\n"
    "RuntimeError: shape '[3, 64, 64, 640]' is invalid for input of size 23592960")

add(ID, "truncated", "en", thread("https://github.com/wbw520/scouter/issues/10", "cut where the paste ended"),
    r''' File "E:\github code\scouter\sloter\slot_model.py", line 108, in forward
    x = self.conv1x1(x.view(x.size(0), self.channel, self.feature_size, self.feature_size))
RuntimeError: shape '[32, 128, 9, 9]' is invalid for input of size''')

add(ID, "prose-en", "en", thread("https://github.com/neuraloperator/neuraloperator/issues/6", "Slack mention"),
    "<@U05TORCHBOT> fourier_1d.py fails right at data loading:\n"
    "```\n  File \"fourier_1d.py\", line 161, in <module>\n"
    "    x_train = torch.cat([x_train.reshape(ntrain,s,1), grid.repeat(ntrain,1,1)], dim=2)\n"
    "RuntimeError: shape '[1000, 1024, 1]' is invalid for input of size 8192000\n```")


# --- pytorch/expand-size-mismatch -------------------------------------------------------
ID = "pytorch/expand-size-mismatch"

add(ID, "line", "en", RAN, line("expand_size"))

add(ID, "traceback", "en", thread_tb("https://github.com/rxtan2/Learning-Similarity-Conditions/issues/12", "Windows, PyCharm"),
    r'''Traceback (most recent call last):
  File "D:/LZX/Learning-Similarity-Conditions-master/main.py", line 361, in <module>
    main()    
  File "D:/LZX/Learning-Similarity-Conditions-master/main.py", line 166, in main
    train(train_loader, tnet, criterion, optimizer, epoch)
  File "D:/LZX/Learning-Similarity-Conditions-master/main.py", line 197, in train
    dista, distb, mask_norm, embed_norm, mask_embed_norm = tnet(data1, data2, data3, c)
  File "D:\anaconda\envs\TF2.1\lib\site-packages\torch\nn\modules\module.py", line 889, in _call_impl
    result = self.forward(*input, **kwargs)
  File "D:\LZX\Learning-Similarity-Conditions-master\tripletnet.py", line 36, in forward
    general_x = general_x / norm.expand_as(general_x)
RuntimeError: The expanded size of the tensor (64) must match the existing size (96) at non-singleton dimension 1.  Target sizes: [96, 64].  Tensor sizes: [96]

Process finished with exit code 1''')

add(ID, "prose-en", "en", thread("https://github.com/hkchengrex/CascadePSP/issues/37", "raised by a slice assignment"),
    "refining a mask that is smaller than the image:\n"
    "    p_im[:,:,0:ph,0:pw] = im\n"
    "RuntimeError: The expanded size of the tensor (654) must match the existing size (675) at non-singleton dimension 2.  Target sizes: [1, 3, 654, 900].  Tensor sizes: [3, 675, 900].")

add(ID, "prose-ko", "ko", thread("https://github.com/jbohnslav/deepethogram/issues/123"),
    "feature extractor 학습을 시작하면 바로 이 에러가 나요. 클래스 수를 4개에서 5개로 바꾼 뒤부터요.\n"
    "RuntimeError: The expanded size of the tensor (5) must match the existing size (4) at non-singleton dimension 1.  Target sizes: [32, 5].  Tensor sizes: [4]")

add(ID, "prose-zh", "zh", thread("https://github.com/0809zheng/dogs-VS-cats-pytorch/issues/1", "last batch smaller than the batch size"),
    "猫狗分类最后一个 batch 只有 99 张图，就报这个：\n"
    "RuntimeError: The expanded size of the tensor (100) must match the existing size (99) at non-singleton dimension 0. Target sizes: [100, 1024]. Tensor sizes: [99, 1024]")

add(ID, "truncated", "en", thread_tb("https://github.com/kyutai-labs/pocket-tts/issues/65", "only the end of a rich box"),
    """│    17 │   return valid[0], valid[1]                                                                                  │
╰──────────────────────────────────────────────────────────────────────────────────────────────────────────────────────╯
RuntimeError: The expanded size of the tensor (1000) must match the existing size (1289) at non-singleton dimension 1.
Target sizes: [1, 1000, 16, 64].  Tensor sizes: [1289, 16, 64]""")

add(ID, "traceback", "en", thread("https://github.com/zhongpei/Comfyui_image2prompt/issues/31",
                                  "message as pasted; transformers generate() frames written by hand (raised inside transformers)"),
    traceback([
        ("C:\\ComfyUI\\custom_nodes\\Comfyui_image2prompt\\image2text.py", 140, "get_value", "output_ids = self.model.generate(**inputs, max_new_tokens=512)"),
        (sp("win3", "torch/utils/_contextlib.py"), 115, "decorate_context", "return func(*args, **kwargs)"),
        (sp("win3", "transformers/generation/utils.py"), 1592, "generate", "return self.greedy_search("),
        (sp("win3", "transformers/generation/utils.py"), 2482, "greedy_search", "attention_mask = torch.cat("),
    ], "RuntimeError: The expanded size of the tensor (749) must match the existing size (750) at non-singleton dimension 1.  Target sizes: [1, 749].  Tensor sizes: [1, 750]"))


# --- pytorch/dim-out-of-range ------------------------------------------------------------
ID = "pytorch/dim-out-of-range"

add(ID, "line", "en", RAN, line("dim_softmax"))

add(ID, "traceback", "en", thread_tb("https://github.com/Joyako/SphereFace-pytorch/issues/3", "torch 1.2-era frames"),
    '''  File "train.py", line 276, in <module>
    train()
  File "train.py", line 174, in train
    loss = criterion(scores, labels)
  File "/home/iie/.conda/envs/lib/python3.7/site-packages/torch/nn/modules/module.py", line 547, in __call__
    result = self.forward(*input, **kwargs)
  File "/home/iie/loss.py", line 25, in forward
    index.scatter_(1, target.data.view(-1, 1), 1)
IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)''')

add(ID, "traceback", "en", thread_tb("https://github.com/hpzhao/SummaRuNNer/issues/5", "PyTorch 0.2 on macOS, python 2.7: the old lowercase RuntimeError"),
    '''Traceback (most recent call last):
  File "/SummaRuNNer-master/src/train.py", line 74, in <module>
    outputs = net(sents)
  File "/usr/local/lib/python2.7/site-packages/torch/nn/modules/module.py", line 224, in __call__
    result = self.forward(*input, **kwargs)
  File "/SummaRuNNer-master/src/model.py", line 72, in forward
    doc = torch.transpose(self.tanh(self.fc1(doc_features)), 0, 1)
  File "/usr/local/lib/python2.7/site-packages/torch/autograd/variable.py", line 733, in transpose
    return Transpose.apply(self, dim1, dim2)
  File "/usr/local/lib/python2.7/site-packages/torch/autograd/_functions/tensor.py", line 80, in forward
    result = i.transpose(dim1, dim2)
RuntimeError: dimension out of range (expected to be in range of [-1, 0], but got 1)''')

add(ID, "prose-en", "en", thread("https://github.com/ishaqadenali/SVRG-Pytorch/issues/1", "labels were a 1-D tensor, not one-hot"),
    "loading MNIST myself instead of through the torchvision loader, this line\n"
    "    loss = loss_fn(y_pred, torch.max(yt, 1)[1])\n"
    "gives IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)")

add(ID, "prose-zh", "zh", thread("https://github.com/649453932/Bert-Chinese-Text-Classification-Pytorch/issues/81"),
    "BERT 中文文本分类，已经试过丢掉最后一个 batch（drop_last），还是一样：\n"
    "IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)")

add(ID, "prose-ko", "ko", thread("https://github.com/yifan123/flow_grpo/issues/80", "torchrun rank prefix"),
    "GRPO 학습에서 beta를 0.001로 켜면 KL loss 계산하는 줄에서 죽어요. 텐서는 (bs, seq_len, dim) 3차원이에요.\n"
    "```\n[rank1]:     kl_loss = ((prev_sample_mean - prev_sample_mean_ref) ** 2).mean(dim=(1,2,3), keepdim=True) / (2 * std_dev_t ** 2)\n"
    "[rank1]: IndexError: Dimension out of range (expected to be in range of [-3, 2], but got 3)\n```")

add(ID, "truncated", "en", thread("https://github.com/mutianxu/GDANet/issues/5", "only the failing line and the message"),
    "    pred = pred.max(dim=2)[1]\nIndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)")

add(ID, "traceback", "en", ran("Jupyter layout; argmax on a 1-D tensor of scores"),
    """---------------------------------------------------------------------------
IndexError                                Traceback (most recent call last)
Cell In[12], line 4
      2 with torch.no_grad():
      3     scores = model(x_single)
----> 4 pred = scores.argmax(dim=1)

IndexError: """ + msg("dim_argmax"))


# --- pytorch/conv-input-rank -------------------------------------------------------------
ID = "pytorch/conv-input-rank"

add(ID, "traceback", "en", RAN_FRAMES + "; a video clip (5-D) into a 2-D resnet",
    traceback([
        ("/srv/vid/train.py", 71, "<module>", "logits = backbone(clip)\n         ^^^^^^^^^^^^^^"),
        *at("conda310", CALL["2.13"]),
        ("/opt/conda/lib/python3.10/site-packages/torchvision/models/resnet.py", 285, "forward", "return self._forward_impl(x)\n       ^^^^^^^^^^^^^^^^^^^^^"),
        ("/opt/conda/lib/python3.10/site-packages/torchvision/models/resnet.py", 268, "_forward_impl", "x = self.conv1(x)\n    ^^^^^^^^^^^^^"),
        *at("conda310", rows("conv_rank_5d")),
    ], line("conv_rank_5d")))

add(ID, "line", "en", RAN, line("conv_rank_1d"))

add(ID, "prose-zh", "zh", thread("https://github.com/VisionRush/DeepFakeDefenders/issues/30"),
    "运行 main_infer.py 报错，定位到 img_tensor = torch.stack(all_data, dim=0).unsqueeze(0)，出来是 5 维：\n"
    "RuntimeError: Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [1, 6, 6, 512, 512]")

add(ID, "prose-en", "en", thread("https://github.com/long123524/SEANet_torch/issues/4", "Jupyter excerpt as pasted"),
    "copied models.py, instantiated SEANet(num_classes=1) and called torchsummary's summary(model, (8, 3, 512, 512)):\n```\n"
    "    343 def forward(self, x):\n    344     # VGG\n    345     img_H, img_W = x.shape[2], x.shape[3]\n"
    "--> 347     conv1_1 = self.activ(self.conv1_1(x))\n\n"
    "RuntimeError: Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [2, 8, 3, 512, 512]\n```")

add(ID, "traceback", "en", thread_tb("https://github.com/amir-aghdam/3D-UNet/issues/5", "conv3d variant; trimmed to the first frames and the message"),
    '''Traceback (most recent call last):
  File "train.py", line 45, in <module>
    target = model(image)
  File "/dssg/home/acct-phywd/phywd/.conda/envs/py38/lib/python3.8/site-packages/torch/nn/modules/module.py", line 1518, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
  File "/dssg/home/acct-phywd/phywd/.conda/envs/py38/lib/python3.8/site-packages/torch/nn/modules/module.py", line 1527, in _call_impl
    return forward_call(*args, **kwargs)
  File "/dssg/home/acct-phywd/phywd/task/3DUNet/unet3d.py", line 117, in forward
    out, residual_level1 = self.a_block1(input)
  File "/dssg/home/acct-phywd/phywd/task/3DUNet/unet3d.py", line 39, in forward
    res = self.relu(self.bn1(self.conv1(input)))
RuntimeError: Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: [1, 1, 16, 240, 240, 160]''')

add(ID, "prose-ko", "ko", thread("https://github.com/CGCL-codes/AdvCLIP/issues/3"),
    "CLIP encode_image에 img.squeeze()를 넣었더니 이렇게 나와요. 이미 feature로 바뀐 텐서를 넣은 건지 헷갈려요.\n"
    "Exception has occurred: RuntimeError\nExpected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [32, 1024]")

add(ID, "prose-en", "en", known("1.5-1.10", "the wording before 1.11"),
    "single image inference without unsqueeze(0), torch 1.9:\n"
    "RuntimeError: Expected 4-dimensional input for 4-dimensional weight [64, 3, 7, 7], but got 3-dimensional input of size [3, 224, 224] instead")

add(ID, "truncated", "en", thread("https://github.com/PladsElsker/sd-webui-inpaint-difference/issues/27", "log lines as pasted, trimmed"),
    """10:53:24-702967 ERROR    Image processing unknown mode: 6.0
10:53:25-006878 ERROR    Exception: Expected 3D (unbatched) or 4D (batched) input to
                         conv2d, but got input of size: [0]""")

add(ID, "prose-ko", "ko", thread("https://github.com/leizhang-geo/ST-CausalConvNet/issues/1", "conv1d variant"),
    "batch_size를 바꾸면 conv1d에서 4차원 입력이라고 에러가 나요. batch_size=1일 때만 돌아가요.\n"
    "RuntimeError: Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: [32, 24, 1, 12]")


# --- pytorch/kernel-larger-than-input ------------------------------------------------------
ID = "pytorch/kernel-larger-than-input"

add(ID, "line", "en", RAN, line("kernel_conv"))

add(ID, "traceback", "en", RAN_FRAMES + "; a pooling layer on a 1x1 feature map",
    traceback([
        ("/home/alice/proj/tiny-imgs/eval.py", 33, "<module>", "feats = encoder(thumbs)\n        ^^^^^^^^^^^^^^^"),
        *at("alice311", CALL["2.13"]),
        *at("alice311", [("torch/nn/modules/container.py", 253, "forward", "input = module(input)\n            ^^^^^^^^^^^^^")]),
        *at("alice311", rows("kernel_pool")),
    ], line("kernel_pool")))

add(ID, "prose-en", "en", thread("https://github.com/tamarott/SinGAN/issues/28",
                                 "message and conv.py frame as pasted in a comment; prose written by hand"),
    "SR.py with my own 768x512 image fails at the coarsest scale, the example images are fine:\n"
    '''File "[...]/anaconda3/envs/SinGAN/lib/python3.6/site-packages/torch/nn/modules/conv.py", line 338, in forward
    self.padding, self.dilation, self.groups)
RuntimeError: Calculated padded input size per channel: (2 x 5). Kernel size: (3 x 3). Kernel size can't be greater than actual input size''')

add(ID, "prose-ko", "ko", thread("https://github.com/avalonstrel/GatedConvolution_pytorch/issues/31"),
    "제공된 pretrained 모델로 제 256x256 데이터셋을 테스트하면 이게 떠요. 어디서 크기가 줄어드는지 모르겠어요.\n"
    "```RuntimeError: Calculated padded input size per channel: (3 x 3). Kernel size: (4 x 4). Kernel size can't be greater than actual input size```")

add(ID, "prose-zh", "zh", thread("https://github.com/ZiqiaoPeng/SyncTalk/issues/151", "1-D conv variant"),
    "训练 SyncTalk 的时候报这个，是我的训练视频太短了吗？\n"
    "RuntimeError: Calculated padded input size per channel: (2). Kernel size: (3). Kernel size can't be greater than actual input size")

add(ID, "truncated", "en", thread("https://github.com/Ha0Tang/SelectionGAN/issues/5", "the pasted tail of the traceback"),
    "self.padding, self.dilation, self.groups)\n"
    "RuntimeError: Calculated padded input size per channel: (3 x 3). Kernel size: (4 x 4). Kernel size can't be greater than actual input size")

add(ID, "traceback", "en", thread("https://github.com/ImprintLab/Medical-SAM-Adapter/issues/40",
                                  "message as pasted; frames written by hand (a patch-embedding conv on a flattened input)"),
    traceback([
        ("/root/Medical-SAM-Adapter/function.py", 281, "validation_sam", "imge = net.image_encoder(imgs)"),
        *at("conda310", CALL["2.0"]),
        ("/root/Medical-SAM-Adapter/models/sam/modeling/image_encoder.py", 109, "forward", "x = self.patch_embed(x)"),
        *at("conda310", CALL["2.0"]),
        ("/root/Medical-SAM-Adapter/models/sam/modeling/image_encoder.py", 397, "forward", "x = self.proj(x)"),
        *at("conda310", CALL["2.0"]),
        *at("conda310", [("torch/nn/modules/conv.py", 463, "forward", "return self._conv_forward(input, self.weight, self.bias)"),
                         ("torch/nn/modules/conv.py", 459, "_conv_forward", "return F.conv2d(input, weight, bias, self.stride,")]),
    ], "RuntimeError: Calculated padded input size per channel: (1024 x 2). Kernel size: (16 x 16). Kernel size can't be greater than actual input size"))

add(ID, "prose-en", "en", known("0.4-1.x", "the pooling wording with the CUDA source location"),
    "<@U05TORCHBOT> resnet18 on 32x32 CIFAR images, avgpool at the end:\n"
    "RuntimeError: Given input size: (512x1x1). Calculated output size: (512x-5x-5). Output size is too small at /pytorch/aten/src/THCUNN/generic/SpatialAveragePooling.cu:63")


# --- pytorch/batchnorm-single-value ------------------------------------------------------
ID = "pytorch/batchnorm-single-value"

add(ID, "traceback", "en", RAN_FRAMES,
    traceback([
        ("/home/jiwoo/work/tabular/train.py", 84, "<module>", "out = model(xb)\n      ^^^^^^^^^"),
        *at("venv312", CALL["2.13"]),
        ("/home/jiwoo/work/tabular/model.py", 19, "forward", "x = self.bn1(self.fc1(x))\n    ^^^^^^^^^^^^^^^^^^^^^^"),
        *at("venv312", rows("batchnorm_one")),
    ], line("batchnorm_one")))

add(ID, "line", "en", thread("https://github.com/yassouali/CCT/issues/47"),
    "ValueError: Expected more than 1 value per channel when training, got input size torch.Size([1, 512, 1, 1])")

add(ID, "truncated", "en", thread_tb("https://github.com/thograce/C2FNet/issues/9", "the last frame of 2.x"),
    '''    raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")
ValueError: Expected more than 1 value per channel when training, got input size torch.Size([1, 16, 1, 1])''')

add(ID, "prose-zh", "zh", thread("https://github.com/ultralytics/yolov5/issues/2885"),
    "跑着跑着莫名其妙出现这个错误，DataLoader 里已经加了 drop_last=True 还是不行：\n"
    "ValueError: Expected more than 1 value per channel when training, got input size torch.Size([1, 16, 1, 1])")

add(ID, "prose-ko", "ko", thread("https://github.com/TRAILab/CaDDN/issues/103", "python 3.8, torch 1.4"),
    "train.py 돌리면 첫 에폭에서 바로 죽어요. drop_last=True로 바꿔도 똑같아요.\n"
    "```\nepochs:   0%|                             | 0/10 [00:01<?, ?it/s]\nTraceback (most recent call last):\n"
    '  File "train.py", line 203, in <module>\n    main()\n'
    '  File "/home/ubuntu/anaconda3/envs/caddn/lib/python3.8/site-packages/torch/nn/modules/module.py", line 532, in __call__\n'
    "    result = self.forward(*input, **kwargs)\n"
    "ValueError: Expected more than 1 value per channel when training, got input size torch.Size([1, 256, 1, 1])\n```")

add(ID, "prose-en", "en", thread("https://github.com/sksq96/pytorch-summary/issues/4", "torchsummary runs the model on a batch of one"),
    "calling torchsummary.summary(model, (3, 64, 64)) on my net with BatchNorm1d after the flatten gives\n"
    "ValueError: Expected more than 1 value per channel when training, got input size [1, 256]\n"
    "the model trains fine with a normal batch")

add(ID, "traceback", "en", known("1.0", "frames from a public thread https://github.com/RasmussenLab/vamb/issues/5 (trimmed); its message was cut off there, so the last line is typed from the 1.0 wording (no torch.Size) with a made-up size"),
    '''Traceback (most recent call last):
  File "../vamb/run.py", line 311, in <module>
    logfile=logfile)
  File "/ebio/abt3_projects/software/dev/llmga/tmp/vamb/encode.py", line 262, in trainepoch
    depths_out, tnf_out, mu, logsigma = self(depths_in, tnf_in)
  File "/ebio/abt3_projects/software/dev/miniconda3_dev/envs/vamb/lib/python3.6/site-packages/torch/nn/modules/module.py", line 491, in __call__
    result = self.forward(*input, **kwargs)
  File "/ebio/abt3_projects/software/dev/llmga/tmp/vamb/encode.py", line 180, in _encode
    tensor = encodernorm(self.dropoutlayer(self.relu(encoderlayer(tensor))))
ValueError: Expected more than 1 value per channel when training, got input size [1, 512]''')


# --- pytorch/loss-target-size --------------------------------------------------------------
ID = "pytorch/loss-target-size"

add(ID, "traceback", "en", thread_tb("https://github.com/milesial/Pytorch-UNet/issues/244", "Windows, PyCharm"),
    r'''Epoch 1/5:   0%|          | 0/37 [00:05<?, ?img/s]
Traceback (most recent call last):
  File "D:/project/Pytorch-UNet-master/train.py", line 181, in <module>
    val_percent=args.val / 100)
  File "D:/project/Pytorch-UNet-master/train.py", line 80, in train_net
    loss = criterion(masks_pred, true_masks)
  File "D:\Python\lib\site-packages\torch\nn\modules\module.py", line 541, in __call__
    result = self.forward(*input, **kwargs)
  File "D:\Python\lib\site-packages\torch\nn\modules\loss.py", line 601, in forward
    reduction=self.reduction)
  File "D:\Python\lib\site-packages\torch\nn\functional.py", line 2112, in binary_cross_entropy_with_logits
    raise ValueError("Target size ({}) must be the same as input size ({})".format(target.size(), input.size()))
ValueError: Target size (torch.Size([1, 3, 256, 256])) must be the same as input size (torch.Size([1, 1, 256, 256]))

Process finished with exit code 1''')

add(ID, "line", "en", RAN, line("bce_logits_size"))

add(ID, "prose-en", "en", ran("the UserWarning of F.mse_loss as 2.13 printed it (the warning is the whole symptom)"),
    "no error, but my regression loss plateaus right away and this is printed every step:\n"
    "/home/alice/proj/price/train.py:52: UserWarning: " + warning("warn_mse_target")["message"]
    + "\n  loss = F.mse_loss(pred, y)")

add(ID, "prose-ko", "ko", thread("https://github.com/jiwei0921/CoNet/issues/3", "Windows path as pasted"),
    "학습은 되는데 depth loss에서 경고가 계속 떠요. 그냥 무시해도 되나요?\n"
    "E:\\Salient Object Detection\\2020ECCV\\CoNet-master\\CoNet\\trainer.py:79: UserWarning: Using a target size (torch.Size([2, 256, 256])) that is different to the input size (torch.Size([2, 1, 256, 256])). This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.\n"
    "  loss4 = F.smooth_l1_loss(high_depth, depth, reduction='sum')")

add(ID, "prose-zh", "zh", thread("https://github.com/argusswift/YOLOv4-pytorch/issues/236"),
    "换成自己的数据集（12 类）以后训练就报错，配置里类别数好像还是 10：\n"
    "ValueError: Target size (torch.Size([2, 52, 52, 3, 12])) must be the same as input size (torch.Size([2, 52, 52, 3, 10]))")

add(ID, "traceback", "en", thread_tb("https://github.com/Arctanxy/W-Net-PyTorch/issues/15", "BCELoss, torch 1.8-era frames"),
    '''Traceback (most recent call last):
  File "main.py", line 71, in <module>
    trainer.train_one_epoch(epoch)
  File "/home/W-Net-PyTorch/src/loss_func.py", line 116, in forward
    out[0], real_label.float()
  File "/home/pytorch/lib/python3.6/site-packages/torch/nn/modules/module.py", line 889, in _call_impl
    result = self.forward(*input, **kwargs)
  File "/home/pytorch/lib/python3.6/site-packages/torch/nn/modules/loss.py", line 613, in forward
    return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)
  File "/home//pytorch/lib/python3.6/site-packages/torch/nn/functional.py", line 2752, in binary_cross_entropy
    "Please ensure they have the same size.".format(target.size(), input.size()))
ValueError: Using a target size (torch.Size([64])) that is different to the input size (torch.Size([64, 1])) is deprecated. Please ensure they have the same size.''')

add(ID, "truncated", "en", thread("https://github.com/surajdakua/Crowd-Counting-Using-Pytorch/issues/5",
                                  "hard: the warning comes first and a broadcast error follows; the root cause is the target size, so the class is loss-target-size"),
    "UserWarning: Using a target size (torch.Size([1, 1, 768, 1024])) that is different to the input size (torch.Size([1, 1, 96, 128])). This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size\n...\n"
    "RuntimeError: The size of tensor a (128) must match the size of tensor b (1024) at non-singleton dimension 3")

add(ID, "prose-en", "en", thread("https://github.com/aigc-apps/VideoX-Fun/issues/263", "Slack-escaped"),
    "<@U05TORCHBOT> " + slack_escape(
        "training wan2.1 with deepspeed zero-2 & sometimes this shows up, batch of target != input?\n"
        "UserWarning: Using a target size (torch.Size([2, 16, 5, 60, 100])) that is different to the input size (torch.Size([1, 16, 5, 60, 100])). This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.\n"
        "  mse_loss = F.mse_loss(noise_pred, target, reduction='none')"))


# --- pytorch/rnn-input-size -------------------------------------------------------------------
ID = "pytorch/rnn-input-size"

add(ID, "traceback", "en", thread_tb("https://github.com/RaleLee/DialogueGCN/issues/5", "Windows, torch 1.11-era frames"),
    r'''Traceback (most recent call last):
  File "train_DailyDialog.py", line 359, in <module>
    train_loss, train_acc, _, _, _, train_fscore, _ = train_or_eval_model(model, loss_function, train_loader, e,
  File "train_DailyDialog.py", line 80, in train_or_eval_model
    log_prob, alpha, alpha_f, alpha_b, _ = model(textf, qmask, umask)  # seq_len, batch, n_classes
  File "D:\Anaconda\envs\pytorch\lib\site-packages\torch\nn\modules\module.py", line 1110, in _call_impl
    return forward_call(*input, **kwargs)
  File "D:\Documents\DialogueGCN\model.py", line 407, in forward
    emotions, hidden = self.lstm(U)
  File "D:\Anaconda\envs\pytorch\lib\site-packages\torch\nn\modules\module.py", line 1110, in _call_impl
    return forward_call(*input, **kwargs)
  File "D:\Anaconda\envs\pytorch\lib\site-packages\torch\nn\modules\rnn.py", line 759, in forward
    self.check_forward_args(input, hx, batch_sizes)
  File "D:\Anaconda\envs\pytorch\lib\site-packages\torch\nn\modules\rnn.py", line 684, in check_forward_args
    self.check_input(input, batch_sizes)
  File "D:\Anaconda\envs\pytorch\lib\site-packages\torch\nn\modules\rnn.py", line 205, in check_input
    raise RuntimeError(
RuntimeError: input.size(-1) must be equal to input_size. Expected 100, got 250''')

add(ID, "line", "en", RAN, line("rnn_input_size"))

add(ID, "traceback", "en", RAN_FRAMES + "; GRU with a batch-size-3 initial state for a batch of 4",
    traceback([
        ("/home/jiwoo/work/chatbot/decoder.py", 40, "forward", "out, h = self.gru(emb, h0)\n         ^^^^^^^^^^^^^^^^^^"),
        *at("venv312", rows("rnn_hidden_gru")),
    ], line("rnn_hidden_gru")))

add(ID, "prose-en", "en", RAN + "; LSTM whose (h0, c0) were built for another batch size",
    "last batch of the epoch is smaller and my init_hidden uses the configured batch_size:\n" + line("rnn_hidden_lstm"))

add(ID, "prose-zh", "zh", thread("https://github.com/ljynlp/W2NER/issues/23", "BERT hidden size 768 vs a 1024 setting"),
    "运行到 lstm 的时候报错，是数据处理有问题吗？换了 bert-base 之后出现的：\n"
    "input.size(-1) must be equal to input_size. Expected 1024, got 768")

add(ID, "prose-ko", "ko", thread("https://github.com/xiaojunxu/SQLNet/issues/59", "Windows path trimmed by the poster"),
    "test.py 돌릴 때만 에러가 나요. 학습 때는 300차원 GloVe를 썼고 테스트 때는 100차원 파일을 읽은 것 같아요.\n"
    '  File "C:\\Users\\..\\Anaconda3\\lib\\site-packages\\torch\\nn\\modules\\rnn.py", line 159, in check_input\n'
    "    self.input_size, input.size(-1)))\nRuntimeError: input.size(-1) must be equal to input_size. Expected 300, got 100")

add(ID, "truncated", "en", thread_tb("https://github.com/Guillem96/madgan-pytorch/issues/3", "VS Code debugger layout on macOS"),
    '''Exception has occurred: RuntimeError
input.size(-1) must be equal to input_size. Expected 32, got 4

  File "/Users/j0huan09/Downloads/madgan-pytorch-master/madgan/models.py", line 45, in forward
    rnn_output, _ = self.lstm(x)''')

add(ID, "prose-en", "en", known("1.x", "the hidden-state wording before 2.0 printed a tuple"),
    "seq2seq decoder, bidirectional encoder with 2 layers:\nRuntimeError: Expected hidden size (4, 32, 256), got (2, 32, 256)")

add(ID, "traceback", "en", thread("https://github.com/OpenMined/PySyft/issues/4880", "Colab layout; message as pasted, frames after the first written by hand"),
    """RuntimeError                              Traceback (most recent call last)
<ipython-input-42-fd4a5223524b> in <module>()
----> 1 model, history = train_model(net, dataloaders_dict, criterion, optimizer, num_epochs=10)

6 frames
/usr/local/lib/python3.6/dist-packages/torch/nn/modules/rnn.py in check_input(self, input, batch_sizes)
    178             raise RuntimeError(
    179                 'input.size(-1) must be equal to input_size. Expected {}, got {}'.format(
--> 180                     self.input_size, input.size(-1)))
    181 
    182     def get_expected_hidden_size(self, input: Tensor, batch_sizes: Optional[Tensor]) -> Tuple[int, int, int]:

RuntimeError: input.size(-1) must be equal to input_size. Expected 200, got 0""")


# --- pytorch/pack-padded-lengths ---------------------------------------------------------------
ID = "pytorch/pack-padded-lengths"

add(ID, "line", "en", RAN, line("pack_unsorted"))

add(ID, "traceback", "en", RAN_FRAMES,
    traceback([
        ("/home/alice/proj/asr/model.py", 61, "forward", "packed = pack_padded_sequence(feats, feat_lens, batch_first=True)\n         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
        *at("alice311", rows("pack_unsorted")),
    ], line("pack_unsorted")))

add(ID, "prose-en", "en", thread("https://github.com/pytorch/tutorials/issues/1300", "the chatbot tutorial on a GPU, torch 1.7+"),
    "following the chatbot tutorial, training runs but evaluating with my own sentence gives\n"
    "RuntimeError: 'lengths' argument should be a 1D CPU int64 tensor, but got 1D cuda:0 Long tensor")

add(ID, "prose-zh", "zh", thread("https://github.com/yeyupiaoling/MASR/issues/64", "frames as pasted, trimmed"),
    "DeepSpeech2 编码器里报错，x_lens 已经 .cpu() 了：\n"
    "MASR-develop/masr/model_utils/deepspeech2/encoder.py\", line 41, in forward\n"
    "x = nn.utils.rnn.pack_padded_sequence(x, x_lens.cpu(), batch_first=True)\n"
    "RuntimeError: `lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement if you do not need ONNX exportability")

add(ID, "prose-ko", "ko", thread("https://github.com/bentrevett/pytorch-sentiment-analysis/issues/93", "pytorch 1.7, torchtext 0.8"),
    "감성분석 튜토리얼 노트북을 그대로 돌렸는데 GPU에서 packed sequence 만드는 줄에서 에러가 나요. torch 1.7로 올린 뒤부터예요.\n"
    "RuntimeError: 'lengths' argument should be a 1D CPU int64 tensor, but got 1D cuda:0 Long tensor")

add(ID, "traceback", "en", thread_tb("https://github.com/molecularsets/moses/issues/97", "cuda:1; trimmed, last frames written by hand from the 1.9 rnn.py"),
    '''Traceback (most recent call last):
  File "scripts/run.py", line 219, in <module>
    main(config)
  File "/home/cyy/anaconda3/envs/moses/lib/python3.7/site-packages/moses/aae/trainer.py", line 116, in _train_epoch
    latent_codes = model.encoder_forward(*encoder_inputs)
  File "/home/cyy/anaconda3/envs/moses/lib/python3.7/site-packages/moses/aae/model.py", line 109, in encoder_forward
    return self.encoder(*args, **kwargs)
  File "/home/cyy/anaconda3/envs/moses/lib/python3.7/site-packages/torch/nn/modules/module.py", line 1051, in _call_impl
    return forward_call(*input, **kwargs)
  File "/home/cyy/anaconda3/envs/moses/lib/python3.7/site-packages/torch/nn/utils/rnn.py", line 249, in pack_padded_sequence
    _VF._pack_padded_sequence(input, lengths, batch_first)
RuntimeError: 'lengths' argument should be a 1D CPU int64 tensor, but got 1D cuda:1 Long tensor''')

add(ID, "truncated", "en", thread("https://github.com/pytorch/pytorch/issues/8026", "PyTorch 0.4, python 2.7: the old ValueError; IPython excerpt as pasted"),
    '''/usr/local/lib/python2.7/dist-packages/torch/nn/utils/rnn.pyc in pack_padded_sequence(input, lengths, batch_first)
     77 
     78             if current_length > new_length:  # remember that new_length is the preceding length in the array
---> 79                 raise ValueError("lengths array has to be sorted in decreasing order")
     80             batch_size -= 1
     81             current_length = new_length''')


# --- pytorch/gather-index-rank ----------------------------------------------------------------
ID = "pytorch/gather-index-rank"

add(ID, "line", "en", RAN, line("gather_rank"))

add(ID, "traceback", "en", ran("picking the log-prob of the taken action with a 1-D index"),
    traceback([
        ("/home/jiwoo/work/rl/ppo.py", 118, "update", "logp = dist_logits.log_softmax(-1).gather(1, actions)\n       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
    ], line("gather_rank")))

add(ID, "prose-en", "en", thread("https://github.com/pytorch/pytorch/issues/134244", "the minimal example of that issue"),
    "```python\ntorch.gather(input=torch.tensor([10, 11, 12]), dim=0, index=torch.tensor([[2]]))\n```\n"
    "> RuntimeError: Index tensor must have the same number of dimensions as input tensor\n"
    "but with a 0-d index it works?? what's the rule here")

add(ID, "prose-ko", "ko", ran("DQN Q-value selection"),
    "DQN에서 q_values.gather(1, actions)로 선택한 행동의 Q값을 뽑으려는데 에러가 나요. actions는 shape이 (32,)이에요.\n"
    "RuntimeError: " + msg("gather_rank"))

add(ID, "prose-zh", "zh", ran("Slack code fence"),
    "用 torch.gather 从 logits 里取标签对应的分数，labels 是一维的：\n```\nscores = logits.gather(dim=1, index=labels)\n"
    "RuntimeError: " + msg("gather_rank") + "\n```")

add(ID, "truncated", "en", thread("https://github.com/pytorch/pytorch/pull/3130", "PyTorch 0.2/0.3 wording quoted in that pull request"),
    "    th.gather(arr, 1, idx)\nRuntimeError: invalid argument 4: Index tensor must have same dimensions as input tensor")

add(ID, "traceback", "en", known("1.x-2.x", "Colab layout; a 2-D index into a 3-D tensor of token scores"),
    """---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
[<ipython-input-23-5b0e6a8f2c11>](https://localhost:8080/#) in <cell line: 0>()
      1 token_logp = F.log_softmax(logits, dim=-1)          # (B, T, V)
----> 2 picked = token_logp.gather(2, input_ids[:, 1:])      # (B, T-1)

RuntimeError: Index tensor must have the same number of dimensions as input tensor""")


# --- pytorch/one-hot-classes --------------------------------------------------------------------
ID = "pytorch/one-hot-classes"

add(ID, "line", "en", RAN, line("one_hot_large"))

add(ID, "traceback", "en", thread_tb("https://github.com/Egrt/yolov7-obb/issues/25"),
    '''Traceback (most recent call last):
  File "train.py", line 552, in <module>
    fit_one_epoch(model_train, model, ema, yolo_loss, loss_history, eval_callback, optimizer, epoch, epoch_step, epoch_step_val, gen, gen_val, UnFreeze_Epoch, Cuda, fp16, scaler, save_period, save_dir, local_rank)
  File "/root/yolov7obb/utils/utils_fit.py", line 34, in fit_one_epoch
    loss_value      = yolo_loss(outputs, targets, images)
  File "/root/yolov7obb/nets/yolo_training.py", line 104, in __call__
    bs, as_, gjs, gis, targets, anchors = self.build_targets(predictions, targets, imgs)
  File "/root/yolov7obb/nets/yolo_training.py", line 346, in build_targets
    gt_cls_per_image = F.one_hot(this_target[:, 1].to(torch.int64), self.num_classes).float().unsqueeze(1).repeat(1, pxyxys.shape[0], 1)
RuntimeError: Class values must be smaller than num_classes.''')

add(ID, "prose-en", "en", thread("https://github.com/milesial/Pytorch-UNet/issues/322", "masks saved with 0/255 pixel values"),
    "my binary masks are png with 0 and 255, training crashes in the dice loss at\n"
    "    F.one_hot(mask, classes).permute(0,3,1,2)\nRuntimeError: Class values must be smaller than num_classes.")

add(ID, "prose-zh", "zh", thread("https://github.com/Megvii-BaseDetection/YOLOX/issues/357", "class ids starting at 1"),
    "训练 coco 没问题，换成自己的数据集就在 yolo_head.py 的 get_assignments 里报错，我的类别是从 1 开始编号的，0 是背景：\n"
    "cls_target = F.one_hot(gt_matched_classes.to(torch.int64), self.num_classes)\n"
    "RuntimeError: Class values must be smaller than num_classes.")

add(ID, "prose-ko", "ko", RAN + "; ignore_index -100 in the labels",
    "토큰 분류 라벨에 패딩 위치는 -100을 넣어뒀는데, 라벨 스무딩 하려고 one_hot 부르니까 에러가 나요.\n"
    "RuntimeError: " + msg("one_hot_negative"))

add(ID, "truncated", "en", thread("https://github.com/YuemingJin/STswinCL/issues/4", "as pasted, in backticks"),
    "`label = one_hot(label.to(torch.int64), num_classes=self.class_num)\nRuntimeError: Class values must be smaller than num_classes.`")

add(ID, "traceback", "en", RAN + "; Jupyter layout",
    """---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
Cell In[5], line 2
      1 labels = torch.tensor(df["grade"].values)
----> 2 y = F.one_hot(labels, num_classes=5)

RuntimeError: """ + msg("one_hot_large"))


# --- pytorch/index-dtype -------------------------------------------------------------------------
ID = "pytorch/index-dtype"

add(ID, "line", "en", RAN, line("index_float"))

add(ID, "traceback", "en", thread_tb("https://github.com/INK-USC/RE-Net/issues/29", "Windows, torch 1.4"),
    r'''Traceback (most recent call last):
  File "train.py", line 241, in <module>
    train(args)
  File "train.py", line 136, in train
    loss_s = model(batch_data, (s_hist, s_hist_t), (o_hist, o_hist_t), graph_dict, subject=True)
  File "C:\ProgramData\Anaconda3\lib\site-packages\torch\nn\modules\module.py", line 532, in __call__
    result = self.forward(*input, **kwargs)
  File "F:\RE-Net-master\model.py", line 90, in forward
    self.dropout(torch.cat((self.ent_embeds[s[s_idx]], s_h, rel_embeds[r[s_idx]]), dim=1)))
IndexError: tensors used as indices must be long, byte or bool tensors''')

add(ID, "prose-en", "en", thread("https://github.com/VSehwag/minimal-diffusion/issues/4", "timesteps sampled as floats"),
    "sampling from my diffusion model breaks in the x0 prediction lambda:\n"
    '  File "E:\\minimal-diffusion-main\\main_single.py", line 38, in <lambda>\n'
    "    / unsqueeze3x(scalars.alpha_bar[t].sqrt())\nIndexError: tensors used as indices must be long, byte or bool tensors")

add(ID, "prose-zh", "zh", thread("https://github.com/taishan1994/BERT-BILSTM-CRF/issues/48", "the CRF tags were int32 on the other machine"),
    "同样的代码换了一台电脑运行 main.py 就报错，最后停在 torchcrf 里：\n"
    '  File "C:\\ProgramData\\Anaconda3\\envs\\pytorchpy38_gpu_cuda111\\lib\\site-packages\\torchcrf\\__init__.py", line 186, in _compute_score\n'
    "    score = self.start_transitions[tags[0]]\nIndexError: tensors used as indices must be long, byte or bool tensors")

add(ID, "prose-ko", "ko", thread("https://github.com/cxliu0/PET/issues/4", "the CPU-index variant of the class"),
    "5번째 에폭에서 갑자기 이 에러가 났어요. 모델은 CPU에서 돌리고 있어요.\n"
    "points_queries_win = points_queries_win[:, v_idx].reshape(-1, 2)\n"
    "RuntimeError: indices should be either on cpu or on the same device as the indexed tensor (cpu)")

add(ID, "traceback", "en", thread_tb("https://github.com/modelscope/modelscope/issues/220", "the end of a rich box"),
    """│ y:14 in _i                                                                                       │
│                                                                                                  │
│    11 │   r\"\"\"Index tensor using t and format the output according to x.                         │
│    12 │   \"\"\"                                                                                    │
│    13 │   shape = (x.size(0), ) + (1, ) * (x.ndim - 1)                                           │
│ ❱  14 │   return tensor[t].view(shape).to(x)                                                     │
│    15                                                                                            │
╰──────────────────────────────────────────────────────────────────────────────────────────────────╯
RuntimeError: indices should be either on cpu or on the same device as the indexed tensor (cpu)""")

add(ID, "truncated", "en", thread("https://github.com/meaten/FlowChain-ICCV2023/issues/3", "Windows, only the last frame"),
    '''  File "E:\\code\\FlowChain-ICCV2023-main\\src\\models\\TP\\mgcvae.py", line 542, in encode_node_history
    return outputs[torch.arange(first_history_indices.shape[0]), last_index_per_sequence]
IndexError: tensors used as indices must be long, byte or bool tensors''')

add(ID, "prose-en", "en", known("1.0-1.1", "the wording before bool tensors were allowed as indices"),
    "<@U05TORCHBOT> old detectron-style code on torch 1.0:\n"
    "```IndexError: tensors used as indices must be long or byte tensors```")
