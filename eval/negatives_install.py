"""Install and build failures: pip's resolver, missing wheels, CUDA extension builds, conda.

None of these is a covered class: the taxonomy's install classes (undefined symbols,
torchvision operators, the NumPy 2 ABI, Windows DLL loading, no CUDA build, triton) are
left out on purpose. Issue 25's torch-not-installed and torch-version-mismatch entries took
three lines that were here (pip finding no torch wheel for a pinned CUDA build, and a
torchvision/torch pin conflict): they are covered classes now.
"""

from __future__ import annotations

from .negative_line import known, neg, thread

K = "neg-install"

ITEMS = [
    # pip's resolver
    neg(K, "en", thread("https://github.com/invoke-ai/InvokeAI/issues/532"), r"""
pip install -r requirements-mac.txt

ERROR: Cannot install -r requirements-mac.txt (line 14), -r requirements-mac.txt (line 6) and torch==1.12.1 because these package versions have conflicting dependencies.

The conflict is caused by:
    The user requested torch==1.12.1
    kornia 0.6.0 depends on torch>=1.8.1
    torchvision 0.13.0 depends on torch==1.12.0

To fix this you could try to:
1. loosen the range of package versions you've specified
2. remove package versions to allow pip attempt to solve the dependency conflict

ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/dependency-resolution/#dealing-with-dependency-conflicts
"""),
    neg(K, "zh", thread("https://github.com/dmar-bonn/ipp-al/issues/1"), r"""
按 requirements 装依赖的时候报冲突，应该选哪个版本？

ERROR: Cannot install -r requirements.txt (line 3), -r requirements.txt (line 7) and torch==1.10.2 because these package versions have conflicting dependencies.

The conflict is caused by:
    The user requested torch==1.10.2
    pytorch-lightning 1.5.10 depends on torch>=1.7.*
    torchvision 0.11.2 depends on torch==1.10.1
"""),
    neg(K, "ko", thread("https://github.com/yang-zhang/product_category/issues/5"), r"""
이 패키지가 torch 1.7.1을 고정해서 설치가 안 됩니다. 1.7.1은 이제 받을 수도 없고요

ERROR: Cannot install product-category==0.0.0 and product-category==0.0.2 because these package versions have conflicting dependencies.

The conflict is caused by:
    product-category 0.0.2 depends on torch==1.7.1
    product-category 0.0.0 depends on torch==1.7.1

ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/dependency-resolution/#dealing-with-dependency-conflicts
"""),
    neg(K, "en", thread("https://github.com/OCR-D/ocrd_all/issues/347"), r"""
make all on python 3.10.7:

ERROR: Cannot install -r /dev/fd/63 (line 1) because these package versions have conflicting dependencies.

The conflict is caused by:
    torch 1.13.1+cpu depends on typing-extensions
    torch 1.13.0+cpu depends on typing-extensions
    torch 1.12.1+cpu depends on typing-extensions

ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/dependency-resolution/#dealing-with-dependency-conflicts
"""),
    # no wheel for this python / platform
    neg(K, "en", thread("https://github.com/memgraph/mage/issues/489"), r"""
ERROR: Could not find a version that satisfies the requirement torch==1.12.0 (from versions: 1.13.0, 1.13.1, 2.0.0, 2.0.1, 2.1.0, 2.1.1, 2.1.2, 2.2.0, 2.2.1, 2.2.2, 2.3.0, 2.3.1)
ERROR: No matching distribution found for torch==1.12.0
"""),
    neg(K, "en", thread("https://github.com/pytorch/pytorch/issues/112478"), r"""
just upgraded to Python 3.12.0 and pip can't find torch at all:
ERROR: Could not find a version that satisfies the requirement torch (from versions: none)
"""),
    neg(K, "en", known("pip"), r"""
pip install ./torch-2.1.0+cu121-cp311-cp311-linux_x86_64.whl
ERROR: torch-2.1.0+cu121-cp311-cp311-linux_x86_64.whl is not a supported wheel on this platform.
"""),
    neg(K, "ko", known("pip on Debian/Ubuntu (PEP 668)"), r"""
새 우분투 서버에서 pip install torch 하니까 이렇게 막혀요

error: externally-managed-environment

× This environment is externally managed
╰─> To install Python packages system-wide, try apt install
    python3-xyz, where xyz is the package you are trying to
    install.
"""),
    # CUDA extension builds
    neg(K, "zh", thread("https://github.com/2noise/ChatTTS/issues/595"), r"""
Windows 10 装 flash-attn 这个可选依赖失败，有 N 卡：

PS C:\ChatTTS> pip install flash-attn --no-build-isolation
Collecting flash-attn
  Using cached flash_attn-2.6.1.tar.gz (2.6 MB)
  Preparing metadata (setup.py) ... error
  error: subprocess-exited-with-error

  × python setup.py egg_info did not run successfully.
  │ exit code: 1
  ╰─> [22 lines of output]
      fatal: not a git repository (or any of the parent directories): .git
      C:\Users\ROG\AppData\Local\Temp\pip-install-b32gjsjx\flash-attn_2297bac9ebd4415595ad37c7d00fd795\setup.py:78: UserWarning: flash_attn was requested, but nvcc was not found.  Are you sure your environment has nvcc available?  If you're installing within a container from https://hub.docker.com/r/pytorch/pytorch, only images whose names contain 'devel' will provide nvcc.
        warnings.warn(
      Traceback (most recent call last):
        File "<string>", line 2, in <module>
        File "<pip-setuptools-caller>", line 34, in <module>
        File "C:\Users\ROG\AppData\Local\Temp\pip-install-b32gjsjx\flash-attn_2297bac9ebd4415595ad37c7d00fd795\setup.py", line 134, in <module>
          CUDAExtension(
"""),
    neg(K, "en", thread("https://github.com/Jimver/cuda-toolkit/issues/374"), r"""
the workflow runs the cuda toolkit step first and the flash-attention build still says
  OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.
"""),
    neg(K, "ko", thread("https://github.com/Dao-AILab/flash-attention/issues/1736"), r"""
WSL(윈도우 11)에서 `pip install flash-attn --no-build-isolation` 하면 이렇게 나옵니다:

OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.
"""),
    neg(K, "en", thread("https://github.com/Dao-AILab/flash-attention/issues/1635"), r"""
  × Failed to build `flash-attn==2.7.4.post1`
  ├─▶ The build backend returned an error
  ╰─▶ Call to `setuptools.build_meta:__legacy__.build_wheel` failed (exit status: 1)

      [stdout]


      torch.__version__  = 2.7.0+rocm6.3

      [stderr]
      <string>:106: UserWarning: flash_attn was requested, but nvcc was not found.  Are you sure your environment has nvcc available?  If you're installing within a container from https://hub.docker.com/r/pytorch/pytorch, only
      images whose names contain 'devel' will provide nvcc.
"""),
    neg(K, "en", thread("https://github.com/pyg-team/pytorch_geometric/issues/927"), r"""
installing torch-scatter / torch-sparse from source with CUDA 10.2, gcc 5.5:

nvcc fatal   : Unsupported gpu architecture 'compute_75'
  error: command '/usr/bin/nvcc' failed with exit status 1 error
  ERROR: Failed building wheel for torch-spline-conv
"""),
    neg(K, "en", thread("https://github.com/CharlesShang/DCNv2/issues/53"), r"""
$ ./make.sh
running build
running build_ext
building '_ext' extension
...
/usr/include/c++/6/tuple:502:1: error: body of constexpr function 'static constexpr bool std::_TC<<anonymous>, _Elements>::_NonNestedTuple() [with _SrcTuple = std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor>&&; bool <anonymous> = true; _Elements = {at::Tensor, at::Tensor, at::Tensor, at::Tensor}]' not a return-statement
     }
 ^
error: command '/usr/bin/nvcc' failed with exit status 1
"""),
    neg(K, "en", thread("https://github.com/pytorch/pytorch/issues/49528"), r"""
building pytorch from source fails in nccl:

make[2]: Entering directory '/home/bullu/Downloads/pytorch/third_party/nccl/nccl/src/collectives/device'
nvcc fatal   : Unsupported gpu architecture 'compute_30'
nvcc fatal   : Unsupported gpu architecture 'compute_30'
make[2]: *** [Makefile:52: /home/bullu/Downloads/pytorch/build/nccl/obj/collectives/device/sendrecv.dep] Error 1
subprocess.CalledProcessError: Command '['cmake', '--build', '.', '--target', 'install', '--config', 'Release', '--', '-j', '8']' returned non-zero exit status 1.
"""),
    neg(K, "zh", thread("https://github.com/ucbdrive/few-shot-object-detection/issues/11"), r"""
Ubuntu 16.04，P6000，CUDA 10.1，执行 python setup.py build develop 报：
nvcc fatal   : Unsupported gpu architecture 'compute_61'
error: command '/usr/bin/nvcc' failed with exit status 1
"""),
    neg(K, "ko", thread("https://github.com/Ruyi-Zha/naf_cbct/issues/15"), r"""
RTX3090에서 환경 세팅하는데 CUDA 확장 빌드가 실패해요
nvcc fatal: Unsupported gpu architecture 'compute_86' ninja: build stopped: subcommand failed.
"""),
    neg(K, "en", known("torch.utils.cpp_extension"), r"""
python setup.py install for a custom CUDA op:

  File "/opt/conda/lib/python3.10/site-packages/torch/utils/cpp_extension.py", line 414, in _check_cuda_version
    raise RuntimeError(CUDA_MISMATCH_MESSAGE.format(cuda_str_version, torch.version.cuda))
RuntimeError:
The detected CUDA version (12.1) mismatches the version that was used to compile
PyTorch (11.8). Please make sure to use the same CUDA versions.
"""),
    # Windows compilers
    neg(K, "en", thread("https://github.com/CosciaLab/openDVP/issues/58"), r"""
      error: Microsoft Visual C++ 14.0 or greater is required. Get it with "Microsoft C++ Build Tools": https://visualstudio.microsoft.com/visual-cpp-build-tools/
      [end of output]

  note: This error originates from a subprocess, and is likely not a problem with pip.
  ERROR: Failed building wheel for matplotlib
Failed to build matplotlib
ERROR: Failed to build installable wheels for some pyproject.toml based projects (matplotlib)
"""),
    neg(K, "zh", thread("https://github.com/JefferyHcool/BiliNote/issues/296"), r"""
装依赖时 cffi 编译不过：
  distutils.errors.DistutilsPlatformError: Microsoft Visual C++ 14.0 or greater is required. Get it with "Microsoft C++ Build Tools": https://visualstudio.microsoft.com/visual-cpp-build-tools/
      [end of output]

  note: This error originates from a subprocess, and is likely not a problem with pip.
ERROR: Failed to build 'cffi' when getting requirements to build wheel
"""),
    neg(K, "en", thread("https://github.com/python/cpython/issues/111822"), r"""
./pip install numpy
Collecting numpy
  Using cached numpy-1.25.2.tar.gz (10.8 MB)
  Installing build dependencies ... done
  Getting requirements to build wheel ... error
  error: subprocess-exited-with-error
  
  × Getting requirements to build wheel did not run successfully.
  │ exit code: 1
  ╰─> [33 lines of output]
      Traceback (most recent call last):
        File "/home/kali/.pyenv/versions/3.13-dev/lib/python3.13/site-packages/pip/_vendor/pyproject_hooks/_in_process/_in_process.py", line 353, in <module>
          main()
"""),
    # conda
    neg(K, "en", thread("https://github.com/cleardusk/3DDFA/issues/133"), r"""
Solving environment: ...working... failed
  PackagesNotFoundError: The following packages are not available from current channels:
    - torch[version='>=0.4.1']
  Current channels:
    - https://repo.anaconda.com/pkgs/main/win-64
    - https://repo.anaconda.com/pkgs/main/noarch
    - https://repo.anaconda.com/pkgs/free/win-64
    - https://repo.anaconda.com/pkgs/free/noarch
"""),
    neg(K, "en", thread("https://github.com/BigDataBiology/SemiBin/issues/72"), r"""
conda install pytorch torchvision torchaudio cudatoolkit=10.2 -c pytorch-lts
Collecting package metadata (current_repodata.json): done
Solving environment: failed with initial frozen solve. Retrying with flexible solve.
Collecting package metadata (repodata.json): done
Solving environment: failed with initial frozen solve. Retrying with flexible solve.

PackagesNotFoundError: The following packages are not available from current channels:

  - cudatoolkit=10.2
  - torchaudio

Current channels:

  - https://conda.anaconda.org/pytorch-lts/osx-64
  - https://conda.anaconda.org/pytorch-lts/noarch
"""),
    neg(K, "zh", thread("https://github.com/yisol/IDM-VTON/issues/40"), r"""
Windows 上 conda env create 失败：

C:\tut\IDM-VTON>conda env create -f environment.yaml
Channels:
 - pytorch
 - nvidia
 - defaults
Platform: win-64
Collecting package metadata (repodata.json): done
Solving environment: failed

PackagesNotFoundError: The following packages are not available from current channels:

  - torchtriton==2.0.0=py310
  - pytorch-cuda==11.8=h7e8668a_5
  - pytorch==2.0.1=py3.10_cuda11.8_cudnn8.7.0_0
"""),
    neg(K, "ko", thread("https://github.com/pytorch/pytorch/issues/49330"), r"""
윈도우 10 아나콘다에서 설치 명령을 그대로 쳤는데 패키지를 못 찾는다고 합니다

(base) C:\Users\sunam>conda install pytorch torchvision torchaudio cudatoolkit=10.2 -c pytorch
Collecting package metadata (current_repodata.json): done
Solving environment: failed with initial frozen solve. Retrying with flexible solve.

PackagesNotFoundError: The following packages are not available from current channels:

  - cudatoolkit=10.2
  - pytorch
  - torchaudio

Current channels:

  - https://conda.anaconda.org/pytorch/win-32
  - https://conda.anaconda.org/pytorch/noarch
"""),
    neg(K, "en", known("conda"), r"""
conda install pytorch -c pytorch behind the office proxy:

CondaHTTPError: HTTP 000 CONNECTION FAILED for url <https://conda.anaconda.org/pytorch/linux-64/current_repodata.json>
Elapsed: -

An HTTP error occurred when trying to retrieve this URL.
HTTP errors are often intermittent, and a simple retry will get you on your way.
"""),
    # a CUDA extension that does not build against the installed toolchain
    neg(K, "en", known("pip build"), r"""
pip install of apex fails:
  error: subprocess-exited-with-error
  Failed building wheel for apex
ERROR: Could not build wheels for apex, which is required to install pyproject.toml-based projects
"""),
]
