"""Is this a PyTorch error at all? Before an entry is offered, the paste is judged:

- `no-error`: nothing in it is an error (a greeting, thanks, a question in words only);
- `other-library`: the error was raised by another library (TensorFlow, Keras, JAX,
  pandas, NumPy, scikit-learn, transformers/tokenizers, pip/setuptools, OpenCV, ...),
  told by the exception's module (`tensorflow.python.framework.errors_impl.X`,
  `cv2.error`), the frame that raised it (the deepest frame outside the standard
  library), or a message only that library prints (`OpenCV(4.1.0) ... error: (-215`);
- `pytorch`: everything else, which retrieval and the calibrated confidence then judge.

A PyTorch error raised through another library stays PyTorch's: when the deepest
frame is in torch, or when a knowledge-base signature recognises the message as the
last exception (transformers calling torch and running out of memory), the other
library's frames above it do not count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.text.normalize import normalise_frame_path
from bot.text.scripts import HAN_UNIFIED, HANGUL_SYLLABLES, count

NO_ERROR, OTHER_LIBRARY, PYTORCH = "no-error", "other-library", "pytorch"


@dataclass(frozen=True)
class Library:
    key: str
    name: str
    modules: tuple[str, ...]  # top-level import names (exception modules, frame packages)
    messages: tuple[str, ...] = ()  # regexes only this library prints


LIBRARIES: tuple[Library, ...] = (
    Library("tensorflow", "TensorFlow", ("tensorflow", "tensorflow_core", "tf", "tensorboard"), (
        r"\[\[\{\{node [^}]+\}\}\]\]", r"\[\[Node: ", r"OOM when allocating tensor", r"by allocator \w+_bfc",
        r"\[Op:__\w+\]", r"\btf\.Tensor\(", r"errors_impl\.\w+Error", r"TF_GetCode",
        r"/job:localhost/replica:\d+/task:\d+", r"Could not load dynamic library '(?:libcudart|libcudnn|libnvinfer)",
        r"This TensorFlow binary is optimized",
        # its log lines: "2023-05-01 10:00:00.123456: E tensorflow/core/...cc:329] ..."
        r"(?m)^\s*(?:\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d+)?:? )?[IWEF] ?"
        r"(?:tensorflow|external/(?:local_)?(?:xla|tsl))/[\w/.]+:\d+\]",
        r"\bTensorFlow\b.*\b(?:GPU|CUDA|version)\b.*(?:error|fail)")),
    Library("darknet", "Darknet (YOLO)", ("darknet",), (r"darknet: \./src/\w+\.c",
                                                         r"\bcheck_error: Assertion `0' failed")),
    Library("keras", "Keras", ("keras", "tf_keras"), (
        r"Input \d+ of layer \"?[\w-]+\"? is incompatible with the layer",
        r"Arguments received by \w+\.call\(\)", r"\bShapes \(None, [\d, None]*\) and \(None,",
        r"expected \w+ to have shape \(None,", r"keras\.src\.", r"Exception encountered when calling layer")),
    Library("jax", "JAX", ("jax", "jaxlib", "flax", "optax"), (
        r"\bjax\.errors\.\w+", r"\b(?:TracerArrayConversionError|ConcretizationTypeError|TracerBoolConversionError|"
        r"UnexpectedTracerError|TracerIntegerConversionError)\b", r"jaxlib\.xla_extension", r"\bXlaRuntimeError\b",
        r"jax\.readthedocs\.io", r"became a tracer due to JAX operations", r"Abstract tracer value encountered",
        r"Unable to initialize backend '(?:cuda|gpu|tpu|rocm)'")),
    Library("pandas", "pandas", ("pandas",), (
        r"\bpandas\.errors\.\w+", r"cannot reindex (?:on an axis with|from a) duplicate",
        r"Length of values \(\d+\) does not match length of index \(\d+\)",
        r"Error tokenizing data\. C error", r"SettingWithCopy(?:Warning|Error)",
        r"DataFrame constructor not properly called", r"You are trying to merge on \w+ and \w+ columns",
        r"\bNone of \[Index\(\[")),
    Library("numpy", "NumPy", ("numpy",), (
        r"numpy\.(?:dtype|ndarray|ufunc) size changed, may indicate binary incompatibility",
        r"module 'numpy' has no attribute '(?:float|int|bool|object|str|complex|long|unicode|typeDict)'",
        r"`np\.(?:float|int|bool|object|str|complex)` was a deprecated alias",
        r"\b_ArrayMemoryError\b", r"Unable to allocate [\d.]+ [KMGTP]?i?B for an array with shape",
        r"setting an array element with a sequence", r"has an inhomogeneous shape after \d+ dimensions",
        r"numpy\.core\.multiarray failed to import", r"numpy\.linalg\.LinAlgError")),
    Library("scikit-learn", "scikit-learn", ("sklearn",), (
        r"\bNotFittedError\b", r"This \w+ instance is not fitted yet",
        r"Found input variables with inconsistent numbers of samples",
        r"Expected 2D array, got (?:1D|scalar) array instead", r"\bsklearn\.exceptions\.")),
    Library("transformers", "Hugging Face transformers / tokenizers / hub",
            ("transformers", "tokenizers", "huggingface_hub", "datasets", "accelerate", "peft", "diffusers",
             "sentence_transformers"), (
        r"\bhuggingface\.co\b", r"does not recognize this architecture", r"Tokenizer class \w+ does not exist",
        r"data did not match any variant of untagged enum", r"tokenizer does not have a padding token",
        r"is not the path to a directory containing a file named", r"\bLocalEntryNotFoundError\b",
        r"\b(?:RepositoryNotFoundError|GatedRepoError|EntryNotFoundError|HFValidationError)\b",
        r"\btrust_remote_code=True\b", r"You can't move a model that has some modules offloaded",
        r"Asking to pad but the tokenizer does not have a padding token")),
    Library("pip", "pip / setuptools (installing packages)", ("pip", "setuptools", "pkg_resources", "distutils",
                                                              "wheel", "_distutils_hack", "poetry", "conda"), (
        r"Could not find a version that satisfies the requirement", r"No matching distribution found for",
        r"\berror: subprocess-exited-with-error\b", r"Failed building wheel for", r"Could not build wheels for",
        r"\bResolutionImpossible\b", r"pip's dependency resolver", r"metadata-generation-failed",
        r"legacy-install-failure", r"\bfailed-wheel-build-for-install\b", r"is not a supported wheel on this platform",
        r"Microsoft Visual C\+\+ [\d.]+ or greater is required", r"PackagesNotFoundError",
        r"UnsatisfiableError: The following specifications were found", r"Solving environment: failed",
        r"Getting requirements to build wheel did not run successfully")),
    Library("opencv", "OpenCV", ("cv2",), (
        r"\bOpenCV\(\d[\d.]*\)", r"\bcv2\.error\b", r"error: \(-\d+:[\w ]+\)")),
    Library("onnxruntime", "ONNX Runtime", ("onnxruntime",), (r"\[ONNXRuntimeError\]",)),
    Library("lightning", "PyTorch Lightning", ("pytorch_lightning", "lightning", "lightning_fabric"), (
        r"\bMisconfigurationException\b",)),
    Library("pillow", "Pillow", ("PIL",), (r"\bUnidentifiedImageError\b", r"cannot identify image file")),
    Library("scipy", "SciPy", ("scipy",), ()),
    Library("matplotlib", "Matplotlib", ("matplotlib",), ()),
    Library("xgboost", "XGBoost", ("xgboost",), (r"\bXGBoostError\b",)),
    Library("wandb", "Weights & Biases", ("wandb",), (r"\bwandb\.errors\.", r"\bwandb: ERROR\b")),
)
_BY_MODULE = {module: lib for lib in LIBRARIES for module in lib.modules}
# Messages and log formats only that library prints, strong enough to outweigh a
# PyTorch signature that matches a shared word (TensorFlow's cuDNN handle error names
# CUDNN_STATUS_INTERNAL_ERROR too): they decide unless a torch frame raised the error.
_STRONG = [(next(lib for lib in LIBRARIES if lib.key == key), re.compile(p, re.MULTILINE)) for key, p in (
    ("tensorflow", r"Could not create cudnn handle"),
    ("tensorflow", r"\bResourceExhaustedError\b"),
    ("tensorflow", r"Failed to get convolution algorithm\. This is probably because cuDNN failed to initialize"),
    ("darknet", r"darknet: \./src/\w+\.c"),
)]
_MESSAGES = [(lib, re.compile(p)) for lib in LIBRARIES for p in lib.messages]

# Modules whose frames say nothing about who raised the error (the standard library,
# wrappers that only call on).
_NEUTRAL_TOP = {"<frozen", "<string>", "<notebook>", "threading.py", "runpy.py", "multiprocessing", "concurrent",
                "asyncio", "contextlib.py", "functools.py", "importlib", "abc.py", "typing.py", "site.py",
                "IPython", "ipykernel", "tqdm", "click", "typer", "fire", "hydra", "six.py"}
_TORCH_TOP = ("torch", "torchvision", "torchaudio", "torchtext", "functorch", "triton")
_STDLIB_PATH = re.compile(r"[\\/](?:lib[\\/]python\d[\d.]*|Lib)[\\/](?!site-packages|dist-packages)[\w.]+",
                          re.IGNORECASE)

# Error text: an exception line, a traceback, a log line that says error/failed.
_ERRORISH = re.compile(
    r"Traceback \(most recent call last\)|\b\w*(?:Error|Exception)\b|\berror\b|\bfailed\b|\bfatal\b|"
    r"Segmentation fault|core dumped|Killed\b|\bAborted\b|\bwarning\b|\bCUDA\b.*\b(?:out of memory|error)\b|"
    r"exit (?:code|status) [1-9]|returned non-zero",
    re.IGNORECASE)

_GREETING = re.compile(
    r"^\W*(?:(?:hi|hello|hey|yo|hiya|good (?:morning|afternoon|evening|night)|morning|thanks?|thank you|thx|ty|"
    r"cheers|bye|ok(?:ay)?|cool|great|nice|got it|you there|are you there|anyone (?:here|around)|"
    r"안녕(?:하세요)?|안녕하십니까|감사(?:합니다|해요)?|고마워(?:요)?|고맙습니다|수고(?:하세요|하셨습니다)?|"
    r"你好|您好|大家好|早上好|下午好|晚上好|谢谢|多谢|感谢|在吗|有人吗|再见|好的)(?![A-Za-z]))", re.IGNORECASE)


@dataclass(frozen=True)
class Scope:
    kind: str  # pytorch | other-library | no-error
    library: Library | None = None
    evidence: str = ""  # what gave it away: an exception type, a frame's file, a message fragment
    evidence_kind: str = ""  # exception | frame | message


def _top_module(path: str) -> str:
    rel = normalise_frame_path(path)
    return re.split(r"[\\/.]", rel, maxsplit=1)[0] if "/" in rel else rel


def _frame_library(path: str) -> str:
    """'torch', 'foreign:<key>', 'neutral' or 'user' for one frame's file."""
    rel = normalise_frame_path(path)
    top = rel.split("/", 1)[0]
    if top.startswith("<") or rel == "<notebook>":
        return "user"
    if "/" in rel:  # an installed package (or a torch checkout)
        if top in _TORCH_TOP or top.startswith("torch_"):
            return "torch"
        if top in _BY_MODULE:
            return "foreign:" + _BY_MODULE[top].key
        if any(top.startswith(n) for n in _NEUTRAL_TOP) or not top.replace("_", "").isalnum():
            return "neutral"
        if _STDLIB_PATH.search(path):
            return "neutral"
        return "user"  # another installed package: it neither convicts nor clears torch
    return "neutral" if _STDLIB_PATH.search(path) else "user"


def has_error_text(query) -> bool:
    if query.parsed.exceptions:
        return True
    return bool(_ERRORISH.search(query.cleaned.text))


def is_greeting(text: str) -> bool:
    """A short greeting, thanks or "are you there?" with nothing else to look up."""
    stripped = re.sub(r"<@[\w|.-]+>", " ", text).strip()
    words = stripped.split()
    # Korean and Chinese text is long in characters, short in words.
    cjk = count(stripped, HANGUL_SYLLABLES + HAN_UNIFIED)
    if len(words) > 12 or cjk > 30 or len(stripped) > 120:
        return False
    return bool(_GREETING.match(stripped))


def _type_library(error_type: str | None) -> Library | None:
    if not error_type or "." not in error_type:
        return None
    top = error_type.split(".", 1)[0]
    if top in _TORCH_TOP:
        return None
    return _BY_MODULE.get(top)


def judge(query, signature_primary: bool = False) -> Scope:
    """The scope of a paste (see the module docstring). `signature_primary`: a knowledge
    base signature matched the last exception itself."""
    if not has_error_text(query):
        # a message only another library prints is error text too, even without the word "error"
        for lib, regex in _MESSAGES:
            hit = regex.search(query.cleaned.text)
            if hit:
                return Scope(OTHER_LIBRARY, lib, hit.group(0)[:80], "message")
        return Scope(NO_ERROR)
    last = query.parsed.last
    # 1. The exception's own module: `tensorflow.python.framework.errors_impl.ResourceExhaustedError`.
    lib = _type_library(last.type if last else None)
    if lib is not None:
        return Scope(OTHER_LIBRARY, lib, last.type, "exception")
    # 2. The frame that raised it: the deepest one outside the standard library.
    deepest = None
    for frame in reversed(last.frames if last else []):
        who = _frame_library(frame.path)
        if who != "neutral":
            deepest = (who, frame)
            break
    if deepest is not None and deepest[0] == "torch":
        return Scope(PYTORCH, evidence=normalise_frame_path(deepest[1].path), evidence_kind="frame")
    for lib, regex in _STRONG:
        hit = regex.search(query.cleaned.text)
        if hit:
            return Scope(OTHER_LIBRARY, lib, hit.group(0).strip()[:80], "message")
    if signature_primary:
        return Scope(PYTORCH, evidence_kind="signature")
    if deepest is not None and deepest[0].startswith("foreign:"):
        key = deepest[0].split(":", 1)[1]
        lib = next(lib for lib in LIBRARIES if lib.key == key)
        if not any(_frame_library(f.path) == "torch" for f in last.frames):
            return Scope(OTHER_LIBRARY, lib, normalise_frame_path(deepest[1].path), "frame")
    # 3. A message only that library prints, in the error text (not the asker's words).
    error_text = query.error_text if last is not None else query.cleaned.text
    haystack = error_text + "\n" + "\n".join(e.text() for e in query.parsed.exceptions[:-1])
    if last is None:  # no exception line: the patterns are messages, not words an asker uses
        haystack = query.cleaned.text
    for lib, regex in _MESSAGES:
        hit = regex.search(haystack)
        if hit:
            return Scope(OTHER_LIBRARY, lib, hit.group(0)[:80], "message")
    return Scope(PYTORCH)


def decline_reason(scope: Scope, confident: bool, query) -> str | None:
    """Why a paste is not answered with an entry, or None when it is."""
    if scope.kind == OTHER_LIBRARY:
        return "other-library"
    if scope.kind == NO_ERROR and (not confident or is_greeting(query.cleaned.text)):
        return "no-error"
    return None if confident else "not-covered"
