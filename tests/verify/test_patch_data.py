"""Patches for the data-loading and process-group entries, each run on the entry's own
CPU repro (torch 2.13): fixes must run clean, dead ends must still fail."""

from __future__ import annotations

import pytest

from .conftest import apply_patch, entry_repro

CASES = [
    # (entry, patch, message in the original error, expected: "ok" or the message it still fails with)
    ("collate-type", "keep-batch-as-list", "default_collate: batch must contain", "ok"),
    ("collate-type", "num-workers-zero", "default_collate: batch must contain", "default_collate: batch must contain"),
    ("dataloader-shm", "num-workers-zero", "unable to allocate shared memory(shm)", "ok"),
    ("dataloader-shm", "sharing-strategy-file-system", "unable to allocate shared memory(shm)",
     "unable to allocate shared memory(shm)"),
    ("too-many-open-files", "sharing-strategy-file-system", "Too many open files", "ok"),
    ("too-many-open-files", "num-workers-zero", "Too many open files", "ok"),
    ("worker-pickle", "worker-fn-to-module-level", "Can't pickle local object", "ok"),
    ("worker-pickle", "num-workers-zero", "Can't pickle local object", "ok"),
    ("sampler-shuffle-exclusive", "drop-shuffle-with-sampler", "mutually exclusive with shuffle", "ok"),
    ("sampler-shuffle-exclusive", "sampler-as-batch-sampler", "mutually exclusive with shuffle",
     "batch_sampler option is mutually exclusive"),
    ("random-split-lengths", "random-split-remainder", "Sum of input lengths", "ok"),
    ("random-split-lengths", "random-split-fractions", "Sum of input lengths", "ok"),
    ("random-split-lengths", "random-split-int-of-fractions", "Sum of input lengths", "Sum of input lengths"),
    ("process-group-not-initialized", "init-process-group-guard", "Default process group has not been initialized",
     "ok"),
    ("ddp-mark-ready-twice", "ddp-static-graph", "Expected to mark a variable ready only once", "ok"),
    ("ddp-mark-ready-twice", "checkpoint-non-reentrant", "Expected to mark a variable ready only once", "ok"),
    ("ddp-mark-ready-twice", "ddp-drop-find-unused", "Expected to mark a variable ready only once", "ok"),
    ("ddp-mark-ready-twice", "ddp-broadcast-buffers-false", "Expected to mark a variable ready only once",
     "Expected to mark a variable ready only once"),
    ("syncbn-cpu", "syncbn-convert-only-on-gpu", "SyncBatchNorm expected input tensor to be on GPU", "ok"),
]


@pytest.mark.parametrize("entry,patch,fails_with,expected", CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_patch_on_the_entry_repro(try_patch, entry, patch, fails_with, expected):
    out = try_patch(entry_repro(entry), patch, fails_with=fails_with)
    if expected == "ok":
        out.ok()
    else:
        out.fails(expected)


def test_patches_leave_other_lines_byte_for_byte():
    code = entry_repro("random-split-lengths")
    line = next(i for i, text in enumerate(code.splitlines(), 1) if "random_split(" in text and "import" not in text)
    result = apply_patch("random-split-remainder", code, line)
    assert "random_split(dataset, [80, len(dataset) - (80)])" in result.code
    assert result.code.replace("[80, len(dataset) - (80)]", "[80, 20]") == code


def test_inline_dataloader_in_the_for_header():
    code = ("import torch\nfrom torch.utils.data import DataLoader, RandomSampler, TensorDataset\n"
            "ds = TensorDataset(torch.arange(4.0))\n"
            "for b in DataLoader(ds, sampler=RandomSampler(ds), shuffle=True, batch_size=2):\n    print(b)\n")
    result = apply_patch("drop-shuffle-with-sampler", code, 4)
    assert "for b in DataLoader(ds, sampler=RandomSampler(ds), batch_size=2):" in result.code


def test_lambda_collate_becomes_a_module_level_function():
    code = ("import torch\nfrom torch.utils.data import DataLoader\n"
            "loader = DataLoader([1, 2], num_workers=1, collate_fn=lambda batch: torch.tensor(batch))\n"
            "for b in loader:\n    pass\n")
    result = apply_patch("worker-fn-to-module-level", code, 4)
    assert "def _collate_fn(batch):\n    return torch.tensor(batch)\nloader = DataLoader([1, 2], num_workers=1, " \
           "collate_fn=_collate_fn)" in result.code


def test_not_applicable_cases_say_why():
    plain = ("import torch\nfrom torch.utils.data import DataLoader\nloader = DataLoader([1, 2])\n"
             "for b in loader:\n    pass\n")
    assert "already loads in the main process" in apply_patch("num-workers-zero", plain, 4).reason
    assert "does not pass both shuffle" in apply_patch("drop-shuffle-with-sampler", plain, 4).reason
    assert "neither a lambda nor a function" in apply_patch("worker-fn-to-module-level", plain, 4).reason
    assert "calls no random_split" in apply_patch("random-split-remainder", plain, 4).reason
    assert "no convert_sync_batchnorm" in apply_patch("syncbn-convert-only-on-gpu", plain, 4).reason
    assert "no DistributedDataParallel" in apply_patch("ddp-static-graph", plain, 4).reason
    guarded = apply_patch("init-process-group-guard", entry_repro("syncbn-cpu"), 10)
    assert "already calls init_process_group" in guarded.reason
    closure = ("import torch\nfrom torch.utils.data import DataLoader\n\ndef make(pad):\n"
               "    def collate(batch):\n        return batch + [pad]\n"
               "    return DataLoader([1], num_workers=1, collate_fn=collate)\n\nfor b in make(0):\n    pass\n")
    assert "reads pad of the enclosing function" in apply_patch("worker-fn-to-module-level", closure, 9).reason
