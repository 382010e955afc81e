"""What the bot says instead of an entry: the error is another library's, or there is
no error to look up. Short, in the asker's language (en/ko/zh): the sentences are words
of bot/text/ui.py; what to look for in each library is advice about that library, here."""

from __future__ import annotations

from bot.text.lang import LANGUAGES
from bot.text.ui import WORDS, t

# What to look for, per library (bot/retrieval/scope.py: LIBRARIES keys).
LOOK_FOR = {
    "tensorflow": {
        "en": "Look at the TensorFlow op named in the message ([[node ...]]) and at the TensorFlow/CUDA/cuDNN "
              "versions it was built for; search TensorFlow's issues and docs for the message.",
        "ko": "메시지에 나온 TensorFlow 연산([[node ...]])과 TensorFlow가 빌드된 CUDA/cuDNN 버전을 확인하고, "
              "TensorFlow 이슈와 문서에서 메시지를 찾아보세요.",
        "zh": "看报错里的 TensorFlow 算子（[[node ...]]）以及 TensorFlow 对应的 CUDA/cuDNN 版本；"
              "在 TensorFlow 的 issue 和文档里搜索这条信息。",
    },
    "keras": {
        "en": "Compare the layer's expected input shape with the shape of the data you pass (print model.summary() "
              "and your batch's shape); the Keras docs for that layer say what it expects.",
        "ko": "레이어가 기대하는 입력 shape와 실제로 넣은 데이터의 shape를 비교하세요(model.summary()와 배치 "
              "shape 출력). "
              "해당 레이어의 Keras 문서를 참고하세요.",
        "zh": "对比该层期望的输入形状和你传入数据的形状（打印 model.summary() 和 batch 的 shape）；"
              "查阅该层的 Keras 文档。",
    },
    "jax": {
        "en": "Look at the JAX error page the message links to (tracers inside jit, static arguments) and at the "
              "jax/jaxlib versions and the CUDA plugin you installed.",
        "ko": "메시지가 가리키는 JAX 오류 문서(jit 안의 tracer, static 인자)와 설치한 jax/jaxlib 버전, CUDA "
              "플러그인을 확인하세요.",
        "zh": "查看报错里链接的 JAX 错误文档（jit 中的 tracer、static 参数），以及安装的 jax/jaxlib 版本和 CUDA 插件。",
    },
    "pandas": {
        "en": "Check the DataFrame's index and columns at the line that fails (duplicates, lengths, dtypes); "
              "the pandas docs for that method say what it expects.",
        "ko": "실패한 줄에서 DataFrame의 인덱스와 컬럼(중복, 길이, dtype)을 확인하세요. 해당 메서드의 pandas "
              "문서를 참고하세요.",
        "zh": "检查出错那一行 DataFrame 的索引和列（重复、长度、dtype）；查阅该方法的 pandas 文档。",
    },
    "numpy": {
        "en": "Check the NumPy version against what your other packages were built with (\"size changed\" means "
              "a package compiled for another NumPy), removed aliases like np.float, and the shapes of your arrays.",
        "ko": "NumPy 버전이 다른 패키지가 빌드된 버전과 맞는지(\"size changed\"는 다른 NumPy로 컴파일된 패키지), "
              "np.float 같은 제거된 별칭, 배열 shape를 확인하세요.",
        "zh": "检查 NumPy 版本是否与其他包编译时的版本一致（\"size changed\" 表示某个包是针对另一个 NumPy 编译的）、"
              "np.float 等已移除的别名，以及数组形状。",
    },
    "scikit-learn": {
        "en": "Check the estimator's state (fit before predict/transform) and the shapes of X and y; the "
              "scikit-learn docs for that estimator say what it expects.",
        "ko": "추정기 상태(predict/transform 전에 fit)와 X, y의 shape를 확인하세요. 해당 추정기의 scikit-learn "
              "문서를 참고하세요.",
        "zh": "检查估计器状态（predict/transform 之前先 fit）以及 X、y 的形状；查阅该估计器的 scikit-learn 文档。",
    },
    "transformers": {
        "en": "Check the model id and files on the Hub (or your offline cache), and the transformers/tokenizers "
              "versions: a newer checkpoint often needs a newer release.",
        "ko": "Hub의 모델 id와 파일(또는 오프라인 캐시), transformers/tokenizers 버전을 확인하세요. "
              "새 체크포인트는 대개 새 버전이 필요합니다.",
        "zh": "检查 Hub 上的模型 id 和文件（或离线缓存），以及 transformers/tokenizers 版本：新的 checkpoint "
              "往往需要新版本。",
    },
    "pip": {
        "en": "This is an installation problem: check your Python version and platform against the package's "
              "supported ones, and read the first error above the summary line (the compiler or resolver message).",
        "ko": "설치 문제입니다. 패키지가 지원하는 Python 버전과 플랫폼을 확인하고, 요약 줄 위의 첫 오류"
              "(컴파일러나 resolver 메시지)를 읽어 보세요.",
        "zh": "这是安装问题：核对 Python 版本和平台是否在该包支持范围内，"
              "并查看汇总行之前的第一条错误（编译器或依赖解析器的信息）。",
    },
    "opencv": {
        "en": "An OpenCV assertion usually means an empty or wrongly shaped image: check that cv2.imread found "
              "the file (it returns None otherwise) and the image's shape and dtype.",
        "ko": "OpenCV assertion은 대개 비어 있거나 shape가 잘못된 이미지 때문입니다. cv2.imread가 파일을 찾았는지"
              "(못 찾으면 None), 이미지 shape와 dtype를 확인하세요.",
        "zh": "OpenCV 的断言失败通常是图像为空或形状不对：检查 cv2.imread 是否读到了文件（读不到会返回 "
              "None）以及图像的形状和 dtype。",
    },
}
GENERIC_LOOK_FOR = {
    "en": "Search that library's issues and docs for the message, and check its version.",
    "ko": "해당 라이브러리의 이슈와 문서에서 메시지를 찾아보고, 버전을 확인하세요.",
    "zh": "在该库的 issue 和文档中搜索这条信息，并检查它的版本。",
}


def _lang(lang: str) -> str:
    return lang if lang in LANGUAGES else "en"


def no_error_notice(lang: str) -> str:
    return t("notice_no_error", _lang(lang))


def look_for(library_key: str, lang: str) -> str:
    return LOOK_FOR.get(library_key, GENERIC_LOOK_FOR)[_lang(lang)]


def other_library_notice(library_key: str, name: str, evidence: str, evidence_kind: str, lang: str) -> str:
    lang = _lang(lang)
    key = f"other_by_{evidence_kind}"
    why = t(key, lang, x=evidence, name=name) if key in WORDS else evidence
    return t("notice_other_library", lang, name=name, evidence=why, look_for=look_for(library_key, lang))
