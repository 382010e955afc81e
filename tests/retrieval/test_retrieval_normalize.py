import pytest

from bot.text.normalize import PLACEHOLDERS, normalise_frame_path, normalise_message


@pytest.mark.parametrize("raw, expected", [
    ('File "/home/u/proj/train.py", line 12', 'File "train.py", line <num>'),
    ('File "C:\\Users\\My Name\\proj\\train.py", line 3', 'File "train.py", line <num>'),
    ("object at 0x7f3a2b1c4d90", "object at <hex>"),
    ("Tried to allocate 20.00 MiB (GPU 0; 15.90 GiB total capacity)",
     "Tried to allocate <size> (GPU <dev>; <size> total capacity)"),
    ("mat1 and mat2 shapes cannot be multiplied (64x128 and 256x10)",
     "mat1 and mat2 shapes cannot be multiplied (<shape> and <shape>)"),
    ("got torch.Size([3, 4]) and [32, 3, 224, 224]", "got <shape> and <shape>"),
    ("torch 2.1.0+cu121 requires CUDA 12.1", "torch <ver> requires CUDA <ver>"),
    ("found at least two devices, cuda:0 and cpu!", "found at least two devices, cuda:<dev> and cpu!"),
    ("Connection to 10.0.0.12:29500 failed on rank 3", "Connection to <hex> failed on rank <dev>"),
    ("element 0 of tensors", "element <num> of tensors"),
])
def test_placeholders(raw, expected):
    assert normalise_message(raw) == expected


def test_identifiers_with_digits_survive():
    assert normalise_message("nll_loss2d_forward on float32 via mat1") == "nll_loss2d_forward on float32 via mat1"


def test_placeholders_are_the_knowledge_contract():
    assert PLACEHOLDERS == ("<path>", "<hex>", "<size>", "<shape>", "<ver>", "<dev>", "<num>")


@pytest.mark.parametrize("path, expected", [
    ("/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py", "torch/nn/modules/module.py"),
    ("C:\\Users\\me\\miniconda3\\Lib\\site-packages\\torch\\autograd\\__init__.py", "torch/autograd/__init__.py"),
    ("/home/me/src/pytorch/torch/nn/functional.py", "torch/nn/functional.py"),
    ("<ipython-input-3-5c2d1f>", "<notebook>"),
    ("/tmp/ipykernel_1234/567.py", "<notebook>"),
    ("/home/me/train.py", "train.py"),
])
def test_frame_paths(path, expected):
    assert normalise_frame_path(path) == expected
