"""Patches of bot/verify/patches/cuda.py.

flash-attention-unavailable raises on the CPU (torch 2.13 has a CPU flash kernel), so those
patches run end to end. cuda-fork-reinit needs a CUDA build to raise; here a stand-in does
what a CUDA build does after a fork (torch marks the child as a bad fork) and torch's own
torch.cuda._lazy_init raises the real message; the spawn patches are run against it. The
invalid-device-ordinal patches need GPUs to run: only their transformations are tested.
"""

from __future__ import annotations

from textwrap import dedent

from bot.verify.patches import registry
from bot.verify.patches.base import Failure

from .conftest import apply_patch, entry_repro

NO_KERNEL = "No available kernel"
FORK = "Cannot re-initialize CUDA in forked subprocess"

FLASH_REPRO = dedent("""\
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    query = torch.randn(2, 4, 16, 32)
    key = torch.randn(2, 4, 16, 32)
    value = torch.randn(2, 4, 16, 64)  # value heads wider than the query/key heads
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        out = F.scaled_dot_product_attention(query, key, value)
    print(out.shape)
""")

# The attention runs inside a module's forward, called inline under the restriction; the
# backend is named by its full path and passed as a list; dropout is what flash rejects.
FLASH_MODULE_REPRO = dedent("""\
    import torch
    from torch import nn


    class SelfAttention(nn.Module):
        def forward(self, x):
            return nn.functional.scaled_dot_product_attention(x, x, x, dropout_p=0.1)


    tokens = torch.randn(1, 2, 8, 16)
    with torch.nn.attention.sdpa_kernel([torch.nn.attention.SDPBackend.FLASH_ATTENTION]):
        mixed = SelfAttention()(tokens)
    print(mixed.shape)
""")


def test_sdpa_allow_math_fallback(try_patch):
    out = try_patch(FLASH_REPRO, "sdpa-allow-math-fallback", fails_with=NO_KERNEL)
    assert "with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]):" in out.patch.code
    assert out.patch.code.replace("[SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]",
                                  "SDPBackend.FLASH_ATTENTION") == FLASH_REPRO
    out.ok()
    assert "torch.Size([2, 4, 16, 64])" in out.patched.output


def test_sdpa_allow_math_fallback_through_a_module_call(try_patch):
    out = try_patch(FLASH_MODULE_REPRO, "sdpa-allow-math-fallback", fails_with=NO_KERNEL)
    assert ("with torch.nn.attention.sdpa_kernel([torch.nn.attention.SDPBackend.FLASH_ATTENTION, "
            "torch.nn.attention.SDPBackend.MATH]):") in out.patch.code
    out.ok()


def test_remove_sdpa_kernel_restriction(try_patch):
    out = try_patch(FLASH_REPRO, "remove-sdpa-kernel-restriction", fails_with=NO_KERNEL)
    assert "with sdpa_kernel(" not in out.patch.code
    assert "\nout = F.scaled_dot_product_attention(query, key, value)\n" in out.patch.code
    out.ok()


def test_remove_sdpa_kernel_restriction_through_a_module_call(try_patch):
    out = try_patch(FLASH_MODULE_REPRO, "remove-sdpa-kernel-restriction", fails_with=NO_KERNEL)
    assert "\nmixed = SelfAttention()(tokens)\n" in out.patch.code
    out.ok()


def test_force_enable_flash_sdp_still_fails(try_patch):
    out = try_patch(FLASH_REPRO, "force-enable-flash-sdp", fails_with=NO_KERNEL)
    assert "torch.backends.cuda.enable_flash_sdp(True)\nwith sdpa_kernel(SDPBackend.FLASH_ATTENTION):" in out.patch.code
    out.fails(NO_KERNEL)


def test_sdpa_patches_do_not_apply_without_a_restriction():
    code = ("import torch\nq = torch.randn(2, 4, 16, 32)\n"
            "out = torch.nn.functional.scaled_dot_product_attention(q, q, q[..., :3])\n")
    failure = Failure(type="RuntimeError", message="No available kernel.  Aborting execution.", line=3)
    for name in ("sdpa-allow-math-fallback", "remove-sdpa-kernel-restriction", "force-enable-flash-sdp"):
        result = registry.get(name).apply(code, failure)
        assert not result.applicable and "sdpa_kernel" in result.reason


def test_sdpa_allow_math_fallback_when_math_is_already_there():
    code = FLASH_REPRO.replace("sdpa_kernel(SDPBackend.FLASH_ATTENTION)",
                               "sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH])")
    result = apply_patch("sdpa-allow-math-fallback", code, line=9, message=NO_KERNEL)
    assert not result.applicable and "already" in result.reason


def test_sdpa_allow_math_fallback_on_the_older_sdp_kernel():
    code = dedent("""\
        import torch
        q = torch.randn(1, 2, 8, 16, device="cuda", dtype=torch.float16)
        with torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False, enable_mem_efficient=False):
            out = torch.nn.functional.scaled_dot_product_attention(
                q, q, q, attn_mask=torch.ones(8, 8, device="cuda", dtype=torch.bool))
    """)
    result = apply_patch("sdpa-allow-math-fallback", code, line=4, message=NO_KERNEL)
    assert result.applicable, result.reason
    assert "sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=False)" in result.code


# cuda-fork-reinit ----------------------------------------------------------------------------
# What a CUDA build does: once CUDA is initialised, torch's at-fork handler marks every forked
# child as a bad fork, and torch.cuda._lazy_init() in that child raises. The stand-in sets the
# same flag from an at-fork handler; the raise is torch's own. A spawned child is never forked,
# so it passes that check and reaches the next one of _lazy_init, which on this CPU-only torch
# is "Torch not compiled with CUDA enabled".
BAD_FORK = dedent("""\
    import os

    import torch

    os.register_at_fork(after_in_child=lambda: setattr(torch.cuda, "_is_in_bad_fork", lambda: True))
""")

POOL_REPRO = BAD_FORK + dedent("""\
    import multiprocessing as mp


    def square(i):
        torch.cuda.init()
        return i * i


    if __name__ == "__main__":
        with mp.get_context("fork").Pool(2) as pool:
            print(pool.map(square, range(4)))
""")

DEFAULT_START_REPRO = BAD_FORK + dedent("""\
    import torch.multiprocessing as tmp


    def square(i):
        torch.cuda.init()
        return i * i


    if __name__ == "__main__":
        with tmp.Pool(2) as pool:
            print(pool.map(square, range(4)))
""")

LOADER_REPRO = BAD_FORK + dedent("""\
    from torch.utils.data import DataLoader, Dataset


    class OnGpu(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            torch.cuda.init()
            return torch.tensor([i])


    if __name__ == "__main__":
        for batch in DataLoader(OnGpu(), batch_size=2, num_workers=2):
            print(batch)
""")

NOT_COMPILED = "Torch not compiled with CUDA enabled"


def test_multiprocessing_spawn_replaces_fork(try_patch):
    out = try_patch(POOL_REPRO, "multiprocessing-spawn", fails_with=FORK)
    assert 'with mp.get_context("spawn").Pool(2) as pool:' in out.patch.code
    assert out.patch.code.replace('"spawn"', '"fork"') == POOL_REPRO
    assert out.patched.exit_reason == "error"
    assert FORK not in out.message and NOT_COMPILED in out.message


def test_multiprocessing_spawn_under_the_main_guard(try_patch):
    out = try_patch(DEFAULT_START_REPRO, "multiprocessing-spawn", fails_with=FORK)
    assert ('if __name__ == "__main__":\n    tmp.set_start_method("spawn", force=True)\n'
            '    with tmp.Pool(2)') in out.patch.code
    assert out.patched.exit_reason == "error"
    assert FORK not in out.message and NOT_COMPILED in out.message


def test_multiprocessing_spawn_needs_a_main_guard():
    code = "import multiprocessing as mp\nimport torch\npool = mp.Pool(2)\nprint(pool.map(abs, [1]))\n"
    result = apply_patch("multiprocessing-spawn", code, line=4, message=FORK)
    assert not result.applicable and "__main__" in result.reason


def test_dataloader_spawn_workers(try_patch):
    out = try_patch(LOADER_REPRO, "dataloader-spawn-workers", fails_with=FORK)
    assert 'DataLoader(OnGpu(), batch_size=2, num_workers=2, multiprocessing_context="spawn")' in out.patch.code
    assert out.patched.exit_reason == "error"
    assert FORK not in out.message and NOT_COMPILED in out.message


def test_dataloader_main_process(try_patch):
    out = try_patch(LOADER_REPRO, "dataloader-main-process", fails_with=FORK)
    assert "DataLoader(OnGpu(), batch_size=2, num_workers=0)" in out.patch.code
    assert out.patched.exit_reason == "error"
    assert FORK not in out.message and NOT_COMPILED in out.message


def test_dataloader_patches_need_workers():
    code = "from torch.utils.data import DataLoader\nfor b in DataLoader([1, 2], num_workers=0):\n    print(b)\n"
    for name in ("dataloader-spawn-workers", "dataloader-main-process"):
        result = apply_patch(name, code, line=2, message=FORK)
        assert not result.applicable and "num_workers" in result.reason


# invalid-device-ordinal (transformations only: raising it needs a GPU) --------------------------

def test_first_visible_gpu_rewrites_only_the_failing_line():
    code = dedent("""\
        import torch
        weights = torch.ones(3, device="cuda:0")
        torch.cuda.set_device(3)
        x = torch.ones(2, device="cuda:3") + torch.zeros(2).cuda(2) + torch.ones(1, device=torch.device("cuda", 1))
    """)
    result = apply_patch("first-visible-gpu", code, line=4, message="CUDA error: invalid device ordinal",
                         type_="torch.AcceleratorError")
    assert result.applicable, result.reason
    assert ('x = torch.ones(2, device="cuda:0") + torch.zeros(2).cuda(0) + '
            'torch.ones(1, device=torch.device("cuda", 0))') in result.code
    assert "torch.cuda.set_device(3)" in result.code and 'device="cuda:0")\n' in result.code
    compile(result.code, "patched.py", "exec")


def test_first_visible_gpu_set_device():
    code = "import torch\ntorch.cuda.set_device(1)\n"
    result = apply_patch("first-visible-gpu", code, line=2, message="invalid device ordinal")
    assert result.code == "import torch\ntorch.cuda.set_device(0)\n"


def test_first_visible_gpu_not_applicable_for_a_variable_index():
    code = "import os, torch\nlocal_rank = int(os.environ['LOCAL_RANK'])\ntorch.cuda.set_device(local_rank)\n"
    result = apply_patch("first-visible-gpu", code, line=3, message="invalid device ordinal")
    assert not result.applicable and "literal GPU index" in result.reason


def test_load_map_location_cpu():
    code = "import torch\nstate = torch.load('ckpt.pt')\nmodel = torch.nn.Linear(2, 2)\n"
    result = apply_patch("load-map-location-cpu", code, line=2, message="Attempting to deserialize")
    assert result.code == ("import torch\nstate = torch.load('ckpt.pt', map_location=\"cpu\")\n"
                           "model = torch.nn.Linear(2, 2)\n")
    other = apply_patch("load-map-location-cpu", code, line=3, message="x")
    assert not other.applicable and "torch.load" in other.reason


def test_load_map_location_cpu_runs_on_a_saved_checkpoint(runner, tmp_path):
    # The patched load itself runs here (the checkpoint was saved on the CPU: what only a
    # GPU machine shows is that it also maps storages of a missing GPU).
    code = dedent("""\
        import io
        import torch
        buffer = io.BytesIO()
        torch.save({"w": torch.ones(2)}, buffer)
        buffer.seek(0)
        state = torch.load(buffer)
        print(state["w"].device)
    """)
    result = apply_patch("load-map-location-cpu", code, line=6, message="x")
    assert 'torch.load(buffer, map_location="cpu")' in result.code
    run = runner(result.code)
    assert run.exit_reason == "ok", run.error
    assert "cpu" in run.output


# The entries' own GPU repros: what the patches do to them (the run needs a GPU worker) ----------

def test_multiprocessing_spawn_on_the_fork_entry_repro():
    code = entry_repro("cuda-fork-reinit")
    line = next(i for i, text in enumerate(code.splitlines(), 1) if "pool.map" in text)
    result = apply_patch("multiprocessing-spawn", code, line=line, message=FORK)
    assert result.applicable, result.reason
    assert 'mp.get_context("spawn").Pool(2)' in result.code and '"fork"' not in result.code
    compile(result.code, "patched.py", "exec")


def test_first_visible_gpu_on_the_ordinal_entry_repro():
    code = entry_repro("invalid-device-ordinal")
    line = next(i for i, text in enumerate(code.splitlines(), 1) if "set_device" in text)
    result = apply_patch("first-visible-gpu", code, line=line, message="CUDA error: invalid device ordinal",
                         type_="torch.AcceleratorError")
    assert result.applicable, result.reason
    assert "torch.cuda.set_device(0)" in result.code
    assert result.code.replace("set_device(0)", "set_device(64)") == code
