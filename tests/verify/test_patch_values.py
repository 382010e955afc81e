"""Patches of bot/verify/patches/values.py, each run on its entry's repro in real torch 2.13
(and on an inline variant where the module or loss is called in place), plus a case where
the patch does not apply and says why."""

from __future__ import annotations

from textwrap import dedent

from .conftest import apply_patch

BOOL = "Boolean value of Tensor with more than one value is ambiguous"
ITEM = "elements cannot be converted to Scalar"
SCALARS = "only one element tensors can be converted to Python scalars"
OBJECT = "can't convert np.ndarray of type numpy.object_"
INTEGER = "can require gradients"
META = "Cannot copy out of meta tensor"
NAN = "returned nan values in its 0th output"
INFERENCE = "Inference tensors cannot be saved for backward"
NON_LEAF = "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed"
DEVICE_NUMPY = "device type tensor to numpy"

BOOL_REPRO = dedent("""\
    import torch
    logits = torch.tensor([-1.5, 0.3, 2.0])
    if logits > 0:
        labels = torch.ones(3)
    else:
        labels = torch.zeros(3)
    print(labels)
""")

ITEM_REPRO = dedent("""\
    import torch
    criterion = torch.nn.MSELoss(reduction="none")
    predictions = torch.randn(4, requires_grad=True)
    loss = criterion(predictions, torch.zeros(4))
    running_loss = loss.item()
    print(running_loss)
""")

ITEM_INLINE = dedent("""\
    import torch
    predictions = torch.randn(4, requires_grad=True)
    print(torch.nn.MSELoss(reduction="none")(predictions, torch.zeros(4)).item())
""")

OBJECT_REPRO = dedent("""\
    import numpy as np
    import torch
    rows = [np.random.rand(3).astype(np.float32) for _ in range(4)]
    features = np.empty(len(rows), dtype=object)
    features[:] = rows
    batch = torch.tensor(features)
    print(batch.shape)
""")

RAGGED = dedent("""\
    import numpy as np
    import torch
    token_ids = np.array([np.array([5, 2, 9]), np.array([7, 1])], dtype=object)
    batch = torch.from_numpy(token_ids)
    print(batch)
""")

LIST_REPRO = dedent("""\
    import torch
    encoder = torch.nn.Linear(5, 3)
    embeddings = [encoder(torch.randn(5)) for _ in range(4)]
    batch = torch.tensor(embeddings)
    print(batch.shape)
""")

LIST_INLINE = dedent("""\
    import torch
    batch = torch.FloatTensor([torch.nn.Linear(5, 3)(torch.randn(5)) for _ in range(4)])
    print(batch.shape, batch.dtype)
""")

INTEGER_REPRO = dedent("""\
    import torch
    image = torch.randint(0, 256, (1, 3, 4, 4))
    image.requires_grad_()
    score = (image * 0.5).sum()
    score.backward()
    print(image.grad.shape)
""")

INTEGER_FACTORY = dedent("""\
    import torch
    weights = torch.tensor([1, 2, 3], requires_grad=True)
    (weights * 2).sum().backward()
    print(weights.grad)
""")

META_REPRO = dedent("""\
    import torch
    saved = torch.nn.Linear(4, 2).state_dict()
    with torch.device("meta"):
        model = torch.nn.Linear(4, 2)
    model.load_state_dict(saved)
    model = model.to("cpu")
    print(model(torch.ones(1, 4)))
""")

META_INLINE = dedent("""\
    import torch
    head = torch.nn.Linear(4, 2, device="meta").to("cpu")
    print(head(torch.ones(1, 4)).shape)
""")

NAN_REPRO = dedent("""\
    import torch
    torch.autograd.set_detect_anomaly(True)
    x = torch.tensor([4.0, -1.0], requires_grad=True)
    y = torch.where(x > 0, torch.sqrt(x), torch.zeros_like(x))
    y.sum().backward()
    print(x.grad)
""")

NAN_LOG = dedent("""\
    import torch
    with torch.autograd.detect_anomaly():
        probs = torch.tensor([0.0, 0.5, 0.5], requires_grad=True)
        loss = -(probs.log() * probs).sum()
        loss.backward()
    print(probs.grad)
""")

INFERENCE_REPRO = dedent("""\
    import torch
    encoder = torch.nn.Linear(8, 4)
    head = torch.nn.Linear(4, 2)
    with torch.inference_mode():
        features = encoder(torch.randn(3, 8))
    logits = head(features)
    logits.sum().backward()
    print(head.weight.grad.shape)
""")

INFERENCE_INLINE = dedent("""\
    import torch
    with torch.inference_mode():
        features = torch.nn.Linear(8, 4)(torch.randn(3, 8))
    loss = torch.nn.MSELoss()(torch.nn.Linear(4, 2)(features), torch.zeros(3, 2))
    loss.backward()
    print(loss.item())
""")

INFERENCE_INPLACE = dedent("""\
    import torch
    with torch.inference_mode():
        running_mean = torch.zeros(4)
    running_mean += torch.ones(4)
    print(running_mean)
""")

NON_LEAF_REPRO = dedent("""\
    import warnings
    import torch
    warnings.filterwarnings("error", message="The .grad attribute of a Tensor that is not a leaf Tensor")
    weights = torch.randn(3, requires_grad=True) * 0.01
    loss = (weights ** 2).sum()
    loss.backward()
    print(weights.grad)
""")

# No GPU here: a meta tensor stands in for the device; numpy() refuses it with the same
# "can't convert <device> device type tensor to numpy" check that a CUDA tensor fails.
DEVICE_STAND_IN = dedent("""\
    import torch
    scores = torch.randn(8, 5, device="meta")
    predicted = scores.argmax(dim=1)
    labels = predicted.numpy()
    print(labels)
""")


# bool-ambiguous ----------------------------------------------------------------------------------

def test_condition_any_and_all_fix_the_if(try_patch):
    out = try_patch(BOOL_REPRO, "condition-any", fails_with=BOOL)
    assert "if (logits > 0).any():" in out.patch.code
    out.ok()
    assert "tensor([1., 1., 1.])" in out.patched.output
    out = try_patch(BOOL_REPRO, "condition-all", fails_with=BOOL)
    assert "if (logits > 0).all():" in out.patch.code
    out.ok()
    assert "tensor([0., 0., 0.])" in out.patched.output


def test_where_instead_of_if_chooses_per_element(try_patch):
    out = try_patch(BOOL_REPRO, "where-instead-of-if", fails_with=BOOL)
    assert "labels = torch.where(logits > 0, torch.ones(3), torch.zeros(3))\nprint(labels)" in out.patch.code
    out.ok()
    assert "tensor([0., 1., 1.])" in out.patched.output


def test_item_in_condition_leads_to_item_multiple_elements(try_patch):
    out = try_patch(BOOL_REPRO, "item-in-condition", fails_with=BOOL)
    assert "if (logits > 0).item():" in out.patch.code
    out.fails(ITEM)


def test_condition_patches_on_and_or_and_assert():
    result = apply_patch("condition-any", "keep = mask_a and not mask_b\n", line=1)
    assert result.code == "keep = mask_a.any() and not mask_b.any()\n"
    result = apply_patch("condition-all", "assert out == expected, 'differs'\n", line=1)
    assert result.code == "assert (out == expected).all(), 'differs'\n"


def test_condition_patches_do_not_apply_without_a_condition():
    result = apply_patch("condition-any", "x = torch.ones(2)\ny = x * 2\n", line=2)
    assert not result.applicable and "no if/while/assert" in result.reason
    result = apply_patch("condition-any", "if x is None:\n    pass\n", line=1)  # `is` gives a bool already
    assert not result.applicable


def test_where_instead_of_if_needs_one_assignment_per_branch():
    code = "if x > 0:\n    y = 1\n    z = 2\nelse:\n    y = 0\n"
    result = apply_patch("where-instead-of-if", code, line=1)
    assert not result.applicable and "one variable in each branch" in result.reason


# item-multiple-elements -------------------------------------------------------------------------------

def test_reduce_before_item(try_patch):
    out = try_patch(ITEM_REPRO, "reduce-before-item", fails_with=ITEM)
    assert "running_loss = loss.mean().item()" in out.patch.code
    out.ok()


def test_item_to_tolist(try_patch):
    out = try_patch(ITEM_REPRO, "item-to-tolist", fails_with=ITEM)
    assert "running_loss = loss.tolist()" in out.patch.code
    out.ok()
    assert out.patched.output.strip().startswith("[")


def test_squeeze_before_item_still_fails(try_patch):
    out = try_patch(ITEM_REPRO, "squeeze-before-item", fails_with=ITEM)
    assert "loss.squeeze().item()" in out.patch.code
    out.fails(ITEM)


def test_reduce_before_item_with_the_loss_called_inline(try_patch):
    out = try_patch(ITEM_INLINE, "reduce-before-item", fails_with=ITEM)
    assert 'torch.nn.MSELoss(reduction="none")(predictions, torch.zeros(4)).mean().item()' in out.patch.code
    out.ok()


def test_item_patches_need_an_item_call():
    result = apply_patch("item-to-tolist", "value = float(loss)\n", line=1)
    assert not result.applicable and "no .item() call" in result.reason


# cuda-tensor-to-numpy (transformations; the fixes run on a CUDA worker) ---------------------------------

def test_numpy_device_patches_rewrite_the_conversion():
    code = "import numpy as np\nimport torch\np = torch.ones(3, device='cuda')\na = p.numpy()\nb = np.asarray(p)\n"
    result = apply_patch("cpu-before-numpy", code, line=4)
    assert "a = p.cpu().numpy()\nb = np.asarray(p)\n" in result.code
    result = apply_patch("cpu-before-numpy", code, line=5)
    assert "b = np.asarray(p.cpu())" in result.code
    result = apply_patch("numpy-force-true", code, line=4)
    assert "a = p.numpy(force=True)" in result.code
    result = apply_patch("numpy-force-true", code, line=5)
    assert "b = np.asarray(p.numpy(force=True))" in result.code
    result = apply_patch("detach-without-cpu", code, line=4)
    assert "a = p.detach().numpy()" in result.code


def test_numpy_device_patches_on_the_stand_in(try_patch):
    # .cpu() and force=True get past the device check (the meta stand-in then has no data to copy);
    # .detach() alone does not.
    out = try_patch(DEVICE_STAND_IN, "cpu-before-numpy", fails_with=DEVICE_NUMPY)
    assert "labels = predicted.cpu().numpy()" in out.patch.code
    assert DEVICE_NUMPY not in out.message and META in out.message
    out = try_patch(DEVICE_STAND_IN, "detach-without-cpu", fails_with=DEVICE_NUMPY)
    out.fails(DEVICE_NUMPY)
    out = try_patch(DEVICE_STAND_IN, "numpy-force-true", fails_with=DEVICE_NUMPY)
    assert DEVICE_NUMPY not in out.message


def test_numpy_device_patches_need_a_conversion():
    result = apply_patch("cpu-before-numpy", "x = t.sum()\n", line=1)
    assert not result.applicable and "no .numpy() or np.array() call" in result.reason


# numpy-object-array --------------------------------------------------------------------------------

def test_stack_object_array(try_patch):
    out = try_patch(OBJECT_REPRO, "stack-object-array", fails_with=OBJECT)
    assert "batch = torch.tensor(np.stack(features))" in out.patch.code
    out.ok()
    assert "torch.Size([4, 3])" in out.patched.output


def test_pad_object_array_handles_rows_of_different_lengths(try_patch):
    out = try_patch(RAGGED, "pad-object-array", fails_with=OBJECT)
    assert "torch.nn.utils.rnn.pad_sequence([torch.as_tensor(row) for row in token_ids], batch_first=True)" \
        in out.patch.code
    out.ok()
    assert "[7, 1, 0]" in out.patched.output
    out = try_patch(RAGGED, "stack-object-array", fails_with=OBJECT)  # stack needs equal lengths
    out.fails("same shape")


def test_astype_float32_on_an_array_of_arrays_fails(try_patch):
    out = try_patch(OBJECT_REPRO, "astype-float32-object-array", fails_with=OBJECT)
    assert "torch.tensor(features.astype(np.float32))" in out.patch.code
    out.fails("setting an array element with a sequence")


def test_stack_object_array_imports_numpy_when_missing():
    code = "import torch\nbatch = torch.from_numpy(features)\n"
    result = apply_patch("stack-object-array", code, line=2)
    assert result.code == "import numpy as np\nimport torch\nbatch = torch.from_numpy(np.stack(features))\n"


# tensor-from-tensor-list ------------------------------------------------------------------------------

def test_stack_tensor_list_keeps_the_graph(try_patch):
    out = try_patch(LIST_REPRO, "stack-tensor-list", fails_with=SCALARS)
    assert "batch = torch.stack(embeddings)" in out.patch.code
    out.ok()
    assert "torch.Size([4, 3])" in out.patched.output


def test_stack_tensor_list_with_a_legacy_constructor_inline(try_patch):
    out = try_patch(LIST_INLINE, "stack-tensor-list", fails_with=SCALARS)
    assert "batch = torch.stack([torch.nn.Linear(5, 3)(torch.randn(5)) for _ in range(4)]).float()" in out.patch.code
    out.ok()
    assert "torch.Size([4, 3]) torch.float32" in out.patched.output


def test_cat_tensor_list(try_patch):
    out = try_patch(LIST_REPRO, "cat-tensor-list", fails_with=SCALARS)
    assert "batch = torch.cat(embeddings)" in out.patch.code
    out.ok()
    assert "torch.Size([12])" in out.patched.output


def test_as_tensor_tensor_list_still_fails(try_patch):
    out = try_patch(LIST_REPRO, "as-tensor-tensor-list", fails_with=SCALARS)
    assert "batch = torch.as_tensor(embeddings)" in out.patch.code
    out.fails(SCALARS)


def test_numpy_array_of_tensors_leads_to_numpy_requires_grad(try_patch):
    out = try_patch(LIST_REPRO, "numpy-array-of-tensors", fails_with=SCALARS)
    assert out.patch.code.startswith("import numpy as np\nimport torch\n")
    assert "batch = torch.tensor(np.array(embeddings))" in out.patch.code
    out.fails("Can't call numpy() on Tensor that requires grad")


def test_tensor_list_patches_keep_dtype_and_device():
    result = apply_patch("stack-tensor-list", "import torch\nb = torch.tensor(xs, dtype=torch.float16, device=dev)\n",
                         line=2)
    assert result.code == "import torch\nb = torch.stack(xs).to(dtype=torch.float16, device=dev)\n"


def test_tensor_list_patches_need_a_factory_call():
    result = apply_patch("stack-tensor-list", "value = float(t)\n", line=1)
    assert not result.applicable and "no torch.tensor" in result.reason


# requires-grad-integer --------------------------------------------------------------------------------

def test_float_before_requires_grad(try_patch):
    out = try_patch(INTEGER_REPRO, "float-before-requires-grad", fails_with=INTEGER)
    assert "image = image.float().requires_grad_()" in out.patch.code
    out.ok()
    assert "torch.Size([1, 3, 4, 4])" in out.patched.output


def test_float_before_requires_grad_on_a_factory(try_patch):
    out = try_patch(INTEGER_FACTORY, "float-before-requires-grad", fails_with=INTEGER)
    assert "torch.tensor([1, 2, 3], requires_grad=True, dtype=torch.float32)" in out.patch.code
    out.ok()
    assert "tensor([2., 2., 2.])" in out.patched.output


def test_parameter_of_integer_tensor_still_fails(try_patch):
    out = try_patch(INTEGER_REPRO, "parameter-of-integer-tensor", fails_with=INTEGER)
    assert "image = torch.nn.Parameter(image)" in out.patch.code
    out.fails(INTEGER)


def test_integer_patches_need_a_request_for_gradients():
    result = apply_patch("float-before-requires-grad", "x = torch.arange(3)\n", line=1)
    assert not result.applicable and "asks for no gradients" in result.reason


# meta-tensor-copy ---------------------------------------------------------------------------------------

def test_load_state_dict_assign(try_patch):
    out = try_patch(META_REPRO, "load-state-dict-assign", fails_with=META)
    assert "model.load_state_dict(saved, assign=True)\nmodel = model.to(\"cpu\")" in out.patch.code
    out.ok()


def test_to_empty_instead_of_to_inline(try_patch):
    out = try_patch(META_INLINE, "to-empty-instead-of-to", fails_with=META)
    assert 'head = torch.nn.Linear(4, 2, device="meta").to_empty(device="cpu")' in out.patch.code
    out.ok()
    assert "torch.Size([1, 2])" in out.patched.output


def test_move_with_cpu_method_still_fails(try_patch):
    out = try_patch(META_REPRO, "move-with-cpu-method", fails_with=META)
    assert "model = model.cpu()" in out.patch.code
    out.fails(META)


def test_load_state_dict_assign_needs_a_load():
    result = apply_patch("load-state-dict-assign", META_INLINE, line=2)
    assert not result.applicable and "no load_state_dict" in result.reason


# anomaly-nan-backward -----------------------------------------------------------------------------------

def test_clamp_nan_op_input(try_patch):
    out = try_patch(NAN_REPRO, "clamp-nan-op-input", fails_with=NAN)
    assert "torch.sqrt(x.clamp_min(1e-6))" in out.patch.code
    out.ok()
    assert "tensor([0.2500, 0.0000])" in out.patched.output


def test_clamp_nan_op_input_on_a_method_call_inside_a_with_block(try_patch):
    out = try_patch(NAN_LOG, "clamp-nan-op-input", fails_with=NAN)
    assert "loss = -(probs.clamp_min(1e-6).log() * probs).sum()" in out.patch.code
    out.ok()


def test_safe_where_branch(try_patch):
    out = try_patch(NAN_REPRO, "safe-where-branch", fails_with=NAN)
    assert "torch.sqrt(torch.where(x > 0, x, torch.ones_like(x)))" in out.patch.code
    out.ok()
    assert "tensor([0.2500, 0.0000])" in out.patched.output


def test_safe_where_branch_guards_function_and_method_calls_alike():
    code = dedent("""\
        import torch
        x = torch.tensor([4.0, -1.0], requires_grad=True)
        y = torch.where(x > 0, torch.sqrt(x), torch.zeros_like(x))
        z = torch.where(x > 0, x.sqrt(), torch.zeros_like(x))
        (y + z).sum().backward()
    """)
    message = "Function 'SqrtBackward0' returned nan values in its 0th output."
    result = apply_patch("safe-where-branch", code, line=5, message=message)
    assert "y = torch.where(x > 0, torch.sqrt(torch.where(x > 0, x, torch.ones_like(x))), " in result.code
    assert "z = torch.where(x > 0, torch.where(x > 0, x, torch.ones_like(x)).sqrt(), " in result.code
    assert "on line(s) 3, 4" in result.note


def test_nan_to_num_output_still_fails(try_patch):
    out = try_patch(NAN_REPRO, "nan-to-num-output", fails_with=NAN)
    assert "y = torch.nan_to_num(torch.where(" in out.patch.code
    out.fails(NAN)


def test_nan_patches_name_what_they_cannot_handle():
    message = "Function 'MmBackward0' returned nan values in its 0th output."
    result = apply_patch("clamp-nan-op-input", "y = a @ b\ny.sum().backward()\n", line=2, message=message)
    assert not result.applicable and "no safe input range" in result.reason
    message = "Function 'SqrtBackward0' returned nan values in its 0th output."
    result = apply_patch("safe-where-branch", "y = torch.sqrt(x)\ny.sum().backward()\n", line=2, message=message)
    assert not result.applicable and "not inside a branch of torch.where" in result.reason


# inference-tensor-backward ---------------------------------------------------------------------------------

def test_clone_inference_tensor(try_patch):
    out = try_patch(INFERENCE_REPRO, "clone-inference-tensor", fails_with=INFERENCE)
    assert "features = features.clone()\nlogits = head(features)" in out.patch.code
    out.ok()


def test_clone_inference_tensor_with_modules_called_inline(try_patch):
    out = try_patch(INFERENCE_INLINE, "clone-inference-tensor", fails_with=INFERENCE)
    assert "features = features.clone()\nloss = torch.nn.MSELoss()(" in out.patch.code
    out.ok()


def test_clone_inference_tensor_before_an_inplace_update(try_patch):
    out = try_patch(INFERENCE_INPLACE, "clone-inference-tensor",
                    fails_with="Inplace update to inference tensor outside InferenceMode")
    assert "running_mean = running_mean.clone()\nrunning_mean += torch.ones(4)" in out.patch.code
    out.ok()


def test_no_grad_instead_of_inference_mode(try_patch):
    out = try_patch(INFERENCE_REPRO, "no-grad-instead-of-inference-mode", fails_with=INFERENCE)
    assert "with torch.no_grad():\n    features = encoder(" in out.patch.code
    out.ok()


def test_clone_inside_inference_mode_and_detach_still_fail(try_patch):
    out = try_patch(INFERENCE_REPRO, "clone-inside-inference-mode", fails_with=INFERENCE)
    assert "    features = encoder(torch.randn(3, 8))\n    features = features.clone()\n" in out.patch.code
    out.fails(INFERENCE)
    out = try_patch(INFERENCE_REPRO, "detach-inference-tensor", fails_with=INFERENCE)
    assert "features = features.detach()\nlogits = head(features)" in out.patch.code
    out.fails(INFERENCE)


def test_inference_patches_need_a_tensor_from_inference_mode():
    result = apply_patch("clone-inference-tensor", "import torch\nx = torch.ones(2)\ny = x * 2\n", line=3)
    assert not result.applicable and "torch.inference_mode()" in result.reason


# non-leaf-grad-none --------------------------------------------------------------------------------------

def test_retain_grad_non_leaf(try_patch):
    out = try_patch(NON_LEAF_REPRO, "retain-grad-non-leaf", fails_with=NON_LEAF)
    assert "weights = torch.randn(3, requires_grad=True) * 0.01\nweights.retain_grad()\n" in out.patch.code
    out.ok()
    assert "tensor([" in out.patched.output


def test_requires_grad_after_ops(try_patch):
    out = try_patch(NON_LEAF_REPRO, "requires-grad-after-ops", fails_with=NON_LEAF)
    assert "weights = (torch.randn(3) * 0.01).requires_grad_()" in out.patch.code
    out.ok()
    assert "tensor([" in out.patched.output


def test_requires_grad_on_non_leaf_raises(try_patch):
    out = try_patch(NON_LEAF_REPRO, "requires-grad-on-non-leaf", fails_with=NON_LEAF)
    assert "weights.requires_grad = True" in out.patch.code
    out.fails("only change requires_grad flags of leaf variables")


def test_requires_grad_after_ops_leaves_a_leaf_alone():
    code = "w = torch.ones(3, requires_grad=True)\nprint(w.grad)\n"
    result = apply_patch("requires-grad-after-ops", code, line=2)
    assert not result.applicable
    result = apply_patch("retain-grad-non-leaf", "print(model.fc.weight.grad)\n", line=1)
    assert not result.applicable and "reads no `x.grad`" in result.reason
