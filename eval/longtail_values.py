"""Long-tail pasted errors about tensor values and Python conversions: truth value of a tensor,
.item() on many elements, cuda tensors to numpy, object arrays, a list of tensors to a tensor,
integer tensors that require grad, meta tensors."""

from __future__ import annotations

from .longtail_common import RAN, RAN_FRAMES, known, known_gpu, line, msg, ran, rows, thread, thread_tb
from .render import at, slack_escape, traceback
from .sample import sample

ITEMS: list[dict] = []


def add(*args) -> None:
    ITEMS.append(sample(*args))


# --- pytorch/bool-ambiguous -------------------------------------------------------------
ID = "pytorch/bool-ambiguous"

add(ID, "line", "en", RAN, line("bool_if"))

add(ID, "traceback", "en", thread("https://github.com/kingsman142/captcha-solver/issues/2", "message and failing line as pasted; header written by hand"),
    'Traceback (most recent call last):\n  File "/train.py", line 128, in <module>\n'
    "    correct += 1 if pred_label == labels[0] else 0\n"
    "RuntimeError: Boolean value of Tensor with more than one value is ambiguous")

add(ID, "prose-zh", "zh", thread("https://github.com/ZhengPeng7/GLCNet/issues/5", "a chained comparison 0 < x < 1 on a tensor"),
    "把 psn_feat_labelledOnly 设成 True 以后就报错，代码里有一句 `0 < box_pid_label < 1`：\n"
    "RuntimeError: Boolean value of Tensor with more than one value is ambiguous")

add(ID, "prose-en", "en", thread("https://github.com/zijundeng/pytorch-semantic-segmentation/issues/41",
                                 "PyTorch 0.4 wording ('bool value'); passing a tensor where the class expects num_classes"),
    "trying the u_net model like this:\n```\nimg = torch.from_numpy(np.zeros((1, IMG_HEIGHT, IMG_WEIGHT, IMG_CHANNELS)))\nUNet(img)\n```\n"
    "RuntimeError: bool value of Tensor with more than one value is ambiguous")

add(ID, "prose-ko", "ko", thread("https://github.com/RussellTsuchida/snefy/issues/1"),
    "integrate.py의 _evaluate_kernel에서 `if not (extra_input == 0):` 줄이 에러를 내요. extra_input이 배치 텐서라서 그런 것 같아요.\n"
    "RuntimeError: Boolean value of Tensor with more than one value is ambiguous")

add(ID, "truncated", "en", thread("https://github.com/OpenBMB/ToolBench/issues/306", "only the carets and the message were pasted"),
    "       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\nRuntimeError: Boolean value of Tensor with more than one value is ambiguous")

add(ID, "traceback", "en", RAN_FRAMES + "; a hard one: tensors passed to a loss constructor instead of its call",
    traceback([
        ("/home/alice/proj/seg/train.py", 77, "<module>", "loss = nn.MSELoss(pred, target)\n       ^^^^^^^^^^^^^^^^^^^^^^^^^"),
        *at("alice311", rows("bool_loss_constructor")),
    ], line("bool_loss_constructor")))

add(ID, "prose-en", "en", thread("https://github.com/richzhang/PerceptualSimilarity/issues/66", "old lowercase wording; Slack-escaped"),
    "<@U05TORCHBOT> " + slack_escape("in compute_accuracy: `d1_lt_d0 = (d1<d0).cpu().data.numpy().flatten()` and also `judge > 0.5` -> "
                                     "RuntimeError: bool value of Tensor with more than one value is ambiguous"))


# --- pytorch/item-multiple-elements ---------------------------------------------------------
ID = "pytorch/item-multiple-elements"

add(ID, "line", "en", RAN, line("item_many"))

add(ID, "traceback", "en", thread_tb("https://github.com/jd730/OICR-pytorch/issues/26",
                                     "PyTorch 0.4: .item() on a 2x3 tensor; chained, the last exception is the class"),
    '''Traceback (most recent call last):
  File "/home/spp/OICR-pytorch/lib/model/oicr/oicr.py", line 68, in forward
    nb = int(num_boxes[:,0].item())
ValueError: only one element tensors can be converted to Python scalars.

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "trainval_net.py", line 423, in <module>
    rois, midn_loss, oc1, oc2, oc3, cls_prob= OICR(im_data, im_rois, labels, num_boxes)
  File "/home/spp/anaconda3/envs/pytorch0.4/lib/python3.6/site-packages/torch/nn/modules/module.py", line 491, in __call__
    result = self.forward(*input, **kwargs)
  File "/home/spp/OICR-pytorch/lib/model/oicr/oicr.py", line 70, in forward
    nb = int(num_boxes.item())
ValueError: only one element tensors can be converted to Python scalars.''')

add(ID, "prose-en", "en", RAN + "; float() on a per-sample loss",
    "I log `float(loss)` every step, after switching to reduction='none' it crashes:\nValueError: " + msg("float_many"))

add(ID, "prose-ko", "ko", thread("https://github.com/Naver-AI-Hackathon/AI-Speech/issues/43", "message written from the 1.x wording; the thread showed a screenshot"),
    "y = x.item() 한 줄인데 로컬에서는 되고 서버에서 돌리면 에러가 나요. 배치 크기가 달라서 그런 걸까요?\n"
    "ValueError: only one element tensors can be converted to Python scalars")

add(ID, "prose-zh", "zh", thread("https://github.com/hao-ai-lab/FastVideo/issues/256", "an empty tensor, 8xA100"),
    "8 卡 A100 训练视频模型，跑到一半报这个，好像是某个 batch 的 mask 是空的：\n"
    "RuntimeError: a Tensor with 0 elements cannot be converted to Scalar")

add(ID, "traceback", "en", RAN + "; Jupyter layout, metric computed on a batch",
    """---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
Cell In[18], line 6
      4 preds = logits.argmax(dim=1)
      5 acc = (preds == yb).float()
----> 6 running_acc += acc.item()

RuntimeError: """ + msg("item_many").replace("3 elements", "64 elements"))

add(ID, "truncated", "en", thread("https://github.com/pytorch/vision/issues/4359", "torchvision C++ (libtorch) user; message only"),
    "terminate called after throwing an instance of 'c10::Error'\n  what():  a Tensor with 3 elements cannot be converted to Scalar")

add(ID, "prose-en", "en", known("2.x", "DataParallel returns one loss per GPU"),
    "val loop with DataParallel on 2 GPUs, the loss comes back as a vector of 2:\n"
    "```\n  File \"/workspace/train.py\", line 141, in validate\n    val_loss += loss.item()\n"
    "RuntimeError: a Tensor with 2 elements cannot be converted to Scalar\n```")


# --- pytorch/cuda-tensor-to-numpy ----------------------------------------------------------
ID = "pytorch/cuda-tensor-to-numpy"

add(ID, "traceback", "en", thread_tb("https://github.com/ztxz16/fastllm/issues/231"),
    '''Traceback (most recent call last):
  File "/home/zengzijian/ai_code/fastllm/build/tools/baichuan2flm.py", line 18, in <module>
    torch2flm.tofile(exportPath, model, tokenizer, dtype = dtype)
  File "/home/zengzijian/ai_code/fastllm/build/tools/fastllm_pytools/torch2flm.py", line 156, in tofile
    cur = dict[key].numpy().astype(ori_np_data_type)
TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.''')

add(ID, "line", "en", thread("https://github.com/Zhongdao/Towards-Realtime-MOT/issues/257"),
    "TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.")

add(ID, "prose-zh", "zh", thread("https://github.com/xiaxin1998/DHCN/issues/14", "np.sum on a cuda tensor"),
    "model.py 第 40 行 `item_embeddings = np.sum(final, 0) / (self.layers+1)` 报错：\n"
    "TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.\n\n"
    "Process finished with exit code 1")

add(ID, "prose-en", "en", thread("https://github.com/iMoonLab/PVRNet/issues/3", "the 0.4-1.4 wording ('CUDA tensor')"),
    "training finishes, then the evaluation step dies with\n"
    "TypeError: can't convert CUDA tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.")

add(ID, "traceback", "en", thread_tb("https://github.com/chflame163/ComfyUI_FaceSimilarity/issues/10", "3.11 carets; in a code fence"),
    '''```
  File "./ComfyUI/custom_nodes/comfyui_facesimilarity/py/face_similarity.py", line 10, in tensor2cv2
    npimage = image.numpy()
              ^^^^^^^^^^^^^
TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.
```''')

add(ID, "prose-ko", "ko", thread("https://github.com/JDAI-CV/fast-reid/pull/509"),
    "visualize_result.py 데모를 돌리면 거리 행렬을 numpy로 바꾸는 데서 에러가 나요.\n"
    '  File "demo/visualize_result.py", line 127, in <module>\n    distmat = distmat.numpy()\n'
    "TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.")

add(ID, "truncated", "en", known_gpu("1.5-2.x", "a second GPU in the message; a hard one through matplotlib"),
    '''  File "/opt/conda/lib/python3.10/site-packages/matplotlib/cbook/__init__.py", line 1345, in _to_unmasked_float_array
    return np.asarray(x, float)
  File "/opt/conda/lib/python3.10/site-packages/torch/_tensor.py", line 1062, in __array__
    return self.numpy().astype(dtype, copy=False)
TypeError: can't convert cuda:1 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.''')


# --- pytorch/numpy-object-array ---------------------------------------------------------------
ID = "pytorch/numpy-object-array"

add(ID, "line", "en", RAN, line("numpy_object"))

add(ID, "traceback", "en", thread_tb("https://github.com/aigc-apps/sd-webui-EasyPhoto/issues/380", "Windows, log lines around the traceback"),
    r'''2024-01-19 15:17:38,375 - EasyPhoto - Start 15 Portrait enhancement.
Traceback (most recent call last):
  File "D:\AI2\sd-webui-aki-v4.5\extensions\sd-webui-EasyPhoto\scripts\easyphoto_infer.py", line 2825, in easyphoto_video_infer_forward
    output_video, output_gif, prefix = convert_to_video(
  File "D:\AI2\sd-webui-aki-v4.5\extensions\sd-webui-EasyPhoto\scripts\easyphoto_utils\common_utils.py", line 640, in convert_to_video
    frames = torch.from_numpy(np.array(frames))
TypeError: can't convert np.ndarray of type numpy.object_. The only supported types are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool.''')

add(ID, "traceback", "en", thread_tb("https://github.com/georgian-io/Multimodal-Toolkit/issues/2", "Colab layout, raised inside a transformers Trainer"),
    """---------------------------------------------------------------------------
TypeError                                 Traceback (most recent call last)
<ipython-input-46-3435b262f1ae> in <module>()
----> 1 trainer.train()

5 frames
/usr/local/lib/python3.6/dist-packages/multimodal_transformers/data/tabular_torch_dataset.py in __getitem__(self, idx)
     49         item['labels'] = torch.tensor(self.labels[idx]) if self.labels is not None  else None
     50         item['cat_feats'] = torch.tensor(self.cat_feats[idx]).float() \\
---> 51             if self.cat_feats is not None else torch.zeros(0)
     52         item['numerical_feats'] = torch.tensor(self.numerical_feats[idx]).float()\\
     53             if self.numerical_feats is not None else torch.zeros(0)

TypeError: can't convert np.ndarray of type numpy.object_. The only supported types are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool.""")

add(ID, "prose-en", "en", thread("https://github.com/David-BominWei/DeepLPI/issues/4", "the pre-1.6 list without complex types"),
    "running the notebook cell `train_seq = tensor(np.array(seqembed.loc[train[\"seq\"]])).to(torch.float32)` fails:\n"
    "TypeError: can't convert np.ndarray of type numpy.object_. The only supported types are: float64, float32, float16, int64, int32, int16, int8, uint8, and bool")

add(ID, "prose-zh", "zh", thread("https://github.com/taishan1994/BERT-Relation-Extraction/issues/8", "the 2.3+ list with unsigned types"),
    "运行 re_main.py，训练到 135326/207756 的时候出现这个问题，不知道是哪条数据：\n"
    "TypeError: can't convert np.ndarray of type numpy.object_. The only supported types are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, uint16, uint8, and bool.")

add(ID, "prose-ko", "ko", ran("a pandas column of lists"),
    "판다스 DataFrame에서 리스트가 들어있는 열을 df['emb'].values로 꺼내서 torch.from_numpy 했더니 이렇게 나와요.\n"
    "TypeError: " + msg("numpy_object"))

add(ID, "truncated", "en", thread_tb("https://github.com/QwenAudio/CosyVoice/issues/195", "DataLoader worker, the end of the original traceback"),
    '''    File "/home/raph/repos/CosyVoice/cosyvoice/dataset/processor.py", line 172, in parse_embedding
      sample['spk_embedding'] = torch.tensor(sample['spk_embedding'], dtype=torch.float32)
TypeError: can't convert np.ndarray of type numpy.object_. The only supported types are: float64, float32, float16, complex64, complex128, int64, int32,''')


# --- pytorch/tensor-from-tensor-list ----------------------------------------------------------
# The ValueError text is shared with item-multiple-elements; every line here shows the
# root cause (a Python list of tensors handed to torch.tensor / FloatTensor / np.array).
ID = "pytorch/tensor-from-tensor-list"

add(ID, "traceback", "en", RAN + "; the frame shows torch.tensor on a list of tensors",
    traceback([
        ("/home/jiwoo/work/nlp/collate.py", 12, "collate", "input_ids = torch.tensor([s[\"input_ids\"] for s in batch])\n            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
    ], line("tensor_from_tensor_list")))

add(ID, "prose-en", "en", thread("https://github.com/avishkarsaha/translating-images-into-maps/issues/12", "labels is a list of tensors"),
    "train.py dies in compute_loss on\n    label = torch.tensor(labels, dtype=torch.long)\n"
    "ValueError: only one element tensors can be converted to Python scalars\n"
    "torch.stack(labels) didn't help either, labels is a python list of per-image tensors")

add(ID, "prose-ko", "ko", ran("torch.FloatTensor on a list of tensors"),
    "에폭마다 loss들을 리스트에 모았다가 torch.FloatTensor(losses)로 바꾸려는데 에러가 나요. 각 원소는 길이 4짜리 텐서예요.\n"
    "ValueError: " + msg("tensor_from_tensor_list"))

add(ID, "prose-zh", "zh", ran("a list indexed by a tensor"),
    "用 DataLoader 取出来的 idx（一个 batch 的张量）去索引 Python 列表 self.paths[idx]，报：\n"
    "TypeError: " + msg("tensor_as_index"))

add(ID, "line", "en", RAN + "; a list indexed by a tensor of several indices", line("tensor_as_index"))

add(ID, "traceback", "en", known("1.x-2.x", "Jupyter layout; np.array over a list of tensors with requires_grad goes another way, these are plain tensors"),
    """---------------------------------------------------------------------------
ValueError                                Traceback (most recent call last)
Cell In[9], line 3
      1 feats = [encoder(x) for x in crops]      # each (1, 512)
      2 # feats = torch.cat(feats)
----> 3 feats = torch.Tensor(feats)

ValueError: only one element tensors can be converted to Python scalars""")

add(ID, "truncated", "en", known("1.x-2.x", "only the failing line and the message"),
    "    targets = torch.LongTensor([t['labels'] for t in targets])\nValueError: only one element tensors can be converted to Python scalars")


# --- pytorch/requires-grad-integer -----------------------------------------------------------
ID = "pytorch/requires-grad-integer"

add(ID, "line", "en", RAN, line("requires_grad_long"))

add(ID, "traceback", "en", thread_tb("https://github.com/jiasenlu/NeuralBabyTalk/issues/26", "PyTorch 0.4.1, python 2.7: the older 'floating point dtype' wording"),
    '''Traceback (most recent call last):
  File "main.py", line 268, in <module>
    model = AttModel.TopDownModel(opt)
  File "/workspace/mnt/group/ncut-group/saigequn2013/NeuralBabyTalk/misc/AttModel.py", line 214, in __init__
    self.ccr_core = CascadeCore(opt)
  File "/workspace/mnt/group/ncut-group/saigequn2013/NeuralBabyTalk/misc/AttModel.py", line 246, in __init__
    self.fg_mask = Parameter(opt.fg_mask)
  File "/usr/local/lib/python2.7/dist-packages/torch/nn/parameter.py", line 24, in __new__
    return torch.Tensor._make_subclass(cls, data, requires_grad)
RuntimeError: Only Tensors of floating point dtype can require gradients''')

add(ID, "traceback", "en", thread_tb("https://github.com/kchengiva/Shift-GCN/issues/29", "raised inside DataParallel.replicate with 2 GPUs"),
    '''Traceback (most recent call last):
  File "main.py", line 370, in train
    output = self.model(data)
  File "/home/Liutl/anaconda3/envs/sgcn/lib/python3.7/site-packages/torch/nn/modules/module.py", line 532, in __call__
    result = self.forward(*input, **kwargs)
  File "/home/Liutl/anaconda3/envs/sgcn/lib/python3.7/site-packages/torch/nn/parallel/data_parallel.py", line 151, in forward
    replicas = self.replicate(self.module, self.device_ids[:len(inputs)])
  File "/home/Liutl/anaconda3/envs/sgcn/lib/python3.7/site-packages/torch/nn/parallel/replicate.py", line 146, in replicate
    setattr(replica, key, Parameter(param))
  File "/home/Liutl/anaconda3/envs/sgcn/lib/python3.7/site-packages/torch/nn/parameter.py", line 26, in __new__
    return torch.Tensor._make_subclass(cls, data, requires_grad)
RuntimeError: Only Tensors of floating point dtype can require gradients''')

add(ID, "prose-zh", "zh", thread("https://github.com/LC1332/Luotuo-QA/issues/1", "int4-quantised ChatGLM weights"),
    "用 chatglm-6b 的 int4 量化模型加载 LoRA 就报这个：\n"
    "RuntimeError: Only Tensors of floating point and complex dtype can require gradients")

add(ID, "prose-en", "en", thread("https://github.com/pytorch/pytorch/issues/53466", "the docs example of torch.enable_grad on 1.8"),
    "literally the first line of the enable_grad docs example:\n`x = torch.tensor([1], requires_grad=True)`\n"
    "throws RuntimeError: Only Tensors of floating point and complex dtype can require gradients")

add(ID, "prose-ko", "ko", RAN + "; requires_grad_() on an argmax result",
    "argmax로 나온 인덱스에 대해 기울기를 구해보려고 idx.requires_grad_() 했더니 에러가 나요.\n"
    "RuntimeError: " + msg("requires_grad_int_"))

add(ID, "truncated", "en", thread("https://github.com/Akegarasu/lora-scripts/issues/482", "Windows, flux LoRA training log; cut before the frames"),
    r'''2024-08-24 01:24:54 INFO     epoch is incremented. current_epoch: 0, epoch: 1                          train_util.py:668
Traceback (most recent call last):
  File "E:\TRAINING\lora-scripts\sd-scripts\flux_train_network.py", line 408, in <module>
    trainer.train(args)
...
RuntimeError: only Tensors of floating point dtype can require gradients''')


# --- pytorch/meta-tensor-copy ----------------------------------------------------------------
ID = "pytorch/meta-tensor-copy"

add(ID, "line", "en", RAN, line("meta_copy"))

add(ID, "traceback", "en", RAN_FRAMES + "; .to() on a module built on the meta device",
    traceback([
        ("/home/alice/proj/llm/load.py", 27, "<module>", "model = model.to(\"cuda\")\n        ^^^^^^^^^^^^^^^^^^"),
        *at("alice311", rows("meta_module_to")),
    ], line("meta_module_to")))

add(ID, "prose-en", "en", thread("https://github.com/AIAnytime/Search-Your-PDF-App/issues/7", "the module.py frame of _apply; raised through sentence-transformers/transformers"),
    "the streamlit app loads the embedding model and crashes on start:\n"
    "    return t.to(device, dtype if t.is_floating_point() or t.is_complex() else None, non_blocking)\n"
    "NotImplementedError: Cannot copy out of meta tensor; no data!")

add(ID, "prose-zh", "zh", thread("https://github.com/QwenLM/Qwen-VL/issues/468", "device_map='auto' offloading part of the weights"),
    "照着教程用 AutoModelForCausalLM.from_pretrained(model_dir, device_map=\"auto\", bf16=True, trust_remote_code=True) 加载 Qwen-VL-Chat，"
    "调用 model.chat 就报错：\nNotImplementedError: Cannot copy out of meta tensor; no data!")

add(ID, "prose-ko", "ko", thread("https://github.com/AI4Bharat/IndicF5/issues/28"),
    "IndicF5 모델을 불러오고 추론하려고 하면 이 에러가 나요. GPU 메모리는 충분해요.\n"
    "NotImplementedError: Cannot copy out of meta tensor; no data! Please use torch.nn.Module.to_empty() instead of torch.nn.Module.to() when moving module from meta to a different device.")

add(ID, "traceback", "en", thread_tb("https://github.com/appletea233/LLaVA-ST/issues/5", "trimmed; the last frames written by hand from the 2.1 module.py"),
    '''Traceback (most recent call last):
  File "/home/jimu/code/LLaVA-ST/demo/demo.py", line 95, in <module>
    outputs = chat.chat(
  File "/home/jimu/code/LLaVA-ST/demo/demo.py", line 49, in chat
    output_ids = self.model.generate(
  File "/home/jimu/anaconda3/envs/LLaVA-ST/lib/python3.9/site-packages/torch/utils/_contextlib.py", line 116, in decorate_context
    return func(*args, **kwargs)
  File "/home/jimu/code/LLaVA-ST/./llava/model/language_model/llava_qwen.py", line 250, in generate
    (inputs, position_ids, attention_mask, _, inputs_embeds, _) = self.prepare_inputs_labels_for_multimodal_video(inputs, position_ids, attention_mask, None, None, images, modalities, image_sizes=image_sizes, variables
  File "/home/jimu/anaconda3/envs/LLaVA-ST/lib/python3.9/site-packages/torch/nn/modules/module.py", line 1160, in convert
    return t.to(device, dtype if t.is_floating_point() or t.is_complex() else None, non_blocking)
NotImplementedError: Cannot copy out of meta tensor; no data!''')

add(ID, "truncated", "en", thread("https://github.com/NVIDIA/TensorRT-LLM/issues/1440", "converting a Mixtral checkpoint; only the message"),
    "...\nNotImplementedError: Cannot copy out of meta tensor; no data!")
