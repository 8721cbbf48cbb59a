"""Name tables of the static scan: what a kernel wrapper may call, and what marks each exploit family."""
from __future__ import annotations

_w = str.split

# torch.<name> callables a wrapper may use anywhere: allocation, views, copies, metadata, device plumbing.
# random draws of a shape (`torch.randn(n, m)`, `rand_like(x)`) read no tensor's values: handed only to launches
# (weights an LLM-written wrapper draws because it cannot see the model's) they are an allocation filled from the
# generator, and the numerics judge them; as the output, or computed on, they are still framework compute
RANDOM_CREATION = frozenset(_w("randn rand randint randperm randn_like rand_like randint_like"))
TORCH_ALLOWED = frozenset(_w("""
empty empty_like empty_strided zeros zeros_like ones ones_like full full_like arange tensor as_tensor scalar_tensor
reshape permute transpose swapaxes flatten unflatten squeeze unsqueeze narrow select split chunk unbind
broadcast_to broadcast_tensors broadcast_shapes as_strided t movedim atleast_1d atleast_2d atleast_3d
clone cat concat concatenate stack
is_tensor is_floating_point is_complex numel result_type promote_types can_cast get_default_dtype finfo iinfo
no_grad inference_mode enable_grad set_grad_enabled is_grad_enabled manual_seed seed get_device
use_deterministic_algorithms are_deterministic_algorithms_enabled
is_autocast_enabled get_autocast_dtype get_autocast_gpu_dtype
Size device dtype Generator Tensor
"""))
# attributes of torch that are not callables computing anything (dtypes, constants, classes, namespaces)
TORCH_VALUES = frozenset(_w("""
float float32 float64 double float16 half bfloat16 int8 int16 int32 int64 int long short uint8 uint16 uint32
uint64 bool complex64 complex128 cfloat cdouble float8_e4m3fn float8_e5m2 float8_e4m3fnuz float8_e5m2fnuz
pi e inf nan newaxis contiguous_format channels_last preserve_format strided layout memory_format
__version__ version
"""))
# torch sub-namespaces that are plumbing, not compute: queried or called freely
TORCH_PLUMBING = ("torch.cuda.", "torch.npu.", "torch.backends.", "torch.version.", "torch.device",
                  "torch.types.", "torch.xpu.", "torch.mps.", "torch.accelerator.",
                  # autograd Functions wrap kernels (their backward is reached by autograd only, never by forward);
                  # autocast decorators and queries; DTensor's layout plumbing (isinstance checks, local shards)
                  "torch.autograd.Function", "torch.autograd.function.", "torch.amp.custom_fwd", "torch.amp.custom_bwd",
                  "torch.cuda.amp.custom_fwd", "torch.cuda.amp.custom_bwd", "torch.compiler.disable",
                  "torch.distributed.tensor.", "torch.distributed.is_available", "torch.distributed.is_initialized")
# namespaces named whole (`hasattr(torch, "npu")`, `torch.npu.amp`): plumbing too
TORCH_PLUMBING_NAMES = frozenset(p.rstrip(".") for p in TORCH_PLUMBING)
# ... except these, which run or capture other code
TORCH_PLUMBING_DENY = ("torch.cuda.graph", "torch.cuda.CUDAGraph", "torch.cuda.make_graphed_callables",
                       "torch.cuda.jiterator", "torch.cuda.nvtx")
# initialisation that __init__ may run to build weights like the reference does
TORCH_INIT_ALLOWED = frozenset(_w("""
randn rand randint randn_like rand_like randint_like normal randperm bernoulli multinomial poisson
linspace logspace eye
"""))
NN_CONTAINERS = frozenset(_w("Module ModuleList ModuleDict Sequential Parameter ParameterList ParameterDict Buffer"))

TENSOR_ALLOWED_METHODS = frozenset(_w("""
view view_as reshape reshape_as permute transpose t expand expand_as squeeze unsqueeze flatten unflatten
contiguous clone copy_ to cpu cuda npu xpu detach detach_ narrow select split chunk unbind as_strided movedim
fill_ zero_ new_empty new_zeros new_ones new_full new_tensor new_empty_strided resize_ resize_as_
data_ptr size stride numel nelement dim ndimension element_size is_contiguous storage_offset untyped_storage
float half double int long bool bfloat16 short char byte type type_as pin_memory requires_grad_ get_device
is_floating_point is_complex is_pinned is_shared __len__ record_stream register_hook retain_grad
to_local full_tensor device_mesh placements
"""))
# in-place initialisation methods allowed in __init__ context only
TENSOR_INIT_METHODS = frozenset(_w("""
normal_ uniform_ random_ bernoulli_ exponential_ geometric_ cauchy_ log_normal_ fill_ zero_ copy_
mul_ div_ add_ sub_ clamp_ clamp_min_ clamp_max_ requires_grad_ abs_ neg_
"""))
# attributes of a tensor that are metadata (ints, dtypes, devices), never a tensor
TENSOR_META_ATTRS = frozenset(_w("""
shape dtype device is_cuda is_cpu is_meta ndim layout itemsize nbytes names requires_grad is_leaf is_sparse
size stride numel nelement dim ndimension element_size is_contiguous storage_offset data_ptr get_device
is_floating_point is_complex __len__ type
"""))
TENSOR_VIEW_ATTRS = frozenset(_w("T mT H mH data"))
# method names that only a tensor/array computes with: flagged on receivers of unknown type too
TENSOR_COMPUTE_METHODS = frozenset(_w("""
softmax log_softmax exp exp_ exp2 expm1 log log_ log2 log10 log1p sigmoid sigmoid_ tanh tanh_ relu relu_
gelu silu leaky_relu hardtanh elu selu softplus mish matmul mm bmm addmm addmv baddbmm dot vdot mv outer
einsum sum nansum mean nanmean amax amin argmax argmin logsumexp cumsum cumprod cummax cummin prod norm
var std var_mean std_mean clamp clamp_ clip clip_ sqrt sqrt_ rsqrt rsqrt_ reciprocal square erf erfc erfinv
sin cos tan sinh cosh asin acos atan atan2 floor ceil trunc frac sign sgn masked_fill masked_fill_
masked_scatter masked_select where lerp addcmul addcdiv topk kthvalue median mode sort argsort msort
gather scatter scatter_ scatter_add scatter_add_ index_select index_add index_add_ index_copy index_fill
index_put index_put_ take take_along_dim nonzero count_nonzero unique diff flip roll tril triu cross
maximum minimum fmax fmin fmod remainder hypot logaddexp logical_and logical_or logical_not logical_xor
bitwise_and bitwise_or bitwise_xor bitwise_not eq ne gt ge lt le isnan isinf isfinite nan_to_num
allclose isclose equal all any histc bincount repeat repeat_interleave tile pow pow_ neg neg_ abs abs_
add add_ sub sub_ mul mul_ div div_ true_divide floor_divide square_ renorm softmax_ baddbmm_ addmm_
__add__ __radd__ __iadd__ __sub__ __rsub__ __isub__ __mul__ __rmul__ __imul__ __truediv__ __rtruediv__
__itruediv__ __matmul__ __rmatmul__ __imatmul__ __pow__ __rpow__ __neg__ __abs__ __floordiv__ __mod__
__lt__ __le__ __gt__ __ge__ __eq__ __ne__ __and__ __or__ __xor__ __invert__
"""))
# ... of which these are also common non-tensor method names: flagged only on known tensors
AMBIGUOUS_METHODS = frozenset(_w("""
add sub mul div pow abs neg all any sort max min index count copy update eq ne gt ge lt le where mode
equal clip round floor ceil trunc repeat tile take diff unique sum mean norm
"""))

DYNAMIC_EXEC = frozenset(_w("""
builtins.exec builtins.eval builtins.compile builtins.__import__ builtins.breakpoint
importlib.import_module importlib.reload importlib.__import__ importlib.util.spec_from_file_location
importlib.util.spec_from_loader importlib.util.module_from_spec importlib.util.LazyLoader importlib.machinery
importlib.abc importlib._bootstrap types.FunctionType types.CodeType types.LambdaType marshal runpy code.interact code.InteractiveInterpreter
pydoc.locate torch.hub
"""))
INTROSPECTION = frozenset(_w("""
gc inspect sys.modules sys._getframe sys.settrace sys.setprofile sys.gettrace sys.getprofile sys._current_frames
sys.exc_info sys.meta_path sys.path_hooks traceback tracemalloc builtins.globals builtins.locals builtins.vars
builtins.dir weakref __main__ threading.settrace threading.setprofile faulthandler
"""))
INTROSPECTION_ATTRS = frozenset(_w("""
__globals__ __code__ __closure__ __builtins__ f_back f_locals f_globals f_code tb_frame gi_frame cr_frame
__subclasses__ __dict__ __self__ __func__ __reduce__ __reduce_ex__ __getattribute__ __loader__ __spec__
"""))
FILE_READ = frozenset(_w("""
builtins.open io os.open os.read os.fdopen os.listdir os.scandir os.walk os.stat os.path.exists os.path.isfile
os.path.isdir os.path.getsize os.path.getmtime os.path.lexists glob pathlib shutil
tempfile mmap pickle shelve dbm marshal json.load csv sqlite3 h5py zipfile tarfile gzip bz2 lzma
torch.load torch.from_file torch.storage.UntypedStorage.from_file torch.UntypedStorage.from_file
numpy.load numpy.loadtxt numpy.fromfile numpy.genfromtxt numpy.memmap safetensors
socket urllib http requests ftplib linecache
"""))
CONCURRENCY = frozenset(_w("""
threading _thread multiprocessing concurrent subprocess asyncio signal sched os.fork os.forkpty os.system
os.popen os.spawnl os.spawnv os.spawnve os.spawnlp os.execv os.execve os.execl os.execvp os.posix_spawn
os.kill torch.multiprocessing pty
"""))
CTYPES = frozenset(_w("ctypes cffi torch.ops.load_library torch.classes.load_library _ctypes"))
COMPILE_JIT = frozenset(_w("""
torch.compile torch.jit torch._dynamo torch._inductor torch.fx torch.export torch.func torch.vmap functorch
torch.cuda.graph torch.cuda.CUDAGraph torch.cuda.make_graphed_callables torch.library numba jax
torch.utils.cpp_extension.load_inline_python
"""))
ENV_CHECK = frozenset(_w("""
os.environ os.getenv os.environb os.putenv os.unsetenv os.getcwd os.getpid os.getppid os.uname sys.argv posix nt
sys.orig_argv sys.executable sys.flags platform getpass socket.gethostname resource psutil
triton.knobs pytest unittest
"""))
HOST_NUMPY = ("numpy.",)
HOST_NUMPY_ALLOWED = frozenset(_w("""
numpy.float32 numpy.float16 numpy.float64 numpy.int32 numpy.int64 numpy.dtype numpy.prod numpy.pi numpy.inf
numpy.nan numpy.e numpy.ndarray numpy.integer numpy.floating numpy.bool_
"""))
HOST_METHODS = frozenset(_w("numpy tolist item __array__ __float__ __int__ __bool__ __index__"))

TRITON_KERNEL_DECORATORS = frozenset(_w("""
triton.jit triton.runtime.jit triton.runtime.jit.jit triton.autotune triton.heuristics
triton.runtime.autotuner.autotune triton.runtime.autotuner.heuristics triton.language.core.jit
"""))
TRITON_STORE = frozenset(_w("""
triton.language.store triton.language.atomic_add triton.language.atomic_max triton.language.atomic_min
triton.language.atomic_xchg triton.language.atomic_cas triton.language.atomic_and triton.language.atomic_or
triton.language.atomic_xor triton.language.core.store triton.language.extra.store
"""))
# names of the reference side of a problem file
REFERENCE_NAMES = frozenset(_w("Model CASES get_inputs get_init_inputs TOLERANCE OPERATOR"))

# builtins that compute over their argument (flagged on tensor arguments)
BUILTIN_REDUCERS = frozenset(_w("sum max min abs pow round sorted divmod"))


def matches(qual: str, table) -> str | None:
    """The table entry `qual` equals or lies under (a.b matches a.b.c), else None."""
    for entry in table:
        if qual == entry or qual.startswith(entry + "."):
            return entry
    return None


def torch_compute(q: str, ctx: str) -> str | None:
    """Why a torch name is framework compute in this context (strict/init/kernel), or None."""
    parts = q.split(".")
    last = parts[-1]
    if ctx == "kernel":
        return None if len(parts) == 2 and last in TORCH_VALUES else f"{q} inside a kernel"
    if q == "torch" or q in TORCH_PLUMBING_NAMES or q.startswith(TORCH_PLUMBING) and not q.startswith(TORCH_PLUMBING_DENY):
        return None
    if q.startswith("torch.nn.init."):
        return None if ctx == "init" else f"{q} in forward"
    if q.startswith(("torch.nn.functional", "torch.nn.utils")) or q in ("torch.nn",):
        return None if q in ("torch.nn", "torch.nn.functional") else f"framework compute {q}"
    if q.startswith("torch.nn."):
        if parts[2] in NN_CONTAINERS or parts[2] in ("parameter", "modules") or ctx == "init":
            return None
        return f"builds the nn module {q} in forward"
    if q.startswith("torch.Tensor."):
        allowed = TENSOR_ALLOWED_METHODS | TENSOR_META_ATTRS | TENSOR_VIEW_ATTRS
        if last in allowed or ctx == "init" and last in TENSOR_INIT_METHODS:
            return None
        return f"framework compute {q}"
    if q.startswith("torch.utils.cpp_extension"):
        return None
    if len(parts) == 2:
        if last in TORCH_ALLOWED or last in TORCH_VALUES or ctx == "init" and last in TORCH_INIT_ALLOWED:
            return None
        return f"framework compute {q}"
    return f"framework compute {q}"
