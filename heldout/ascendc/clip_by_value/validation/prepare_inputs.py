import torch


def get_inputs(param, device=None):
    shape = eval(param.get('shape', '[1]'))
    dtype = getattr(torch, param.get('dtype', 'float32'))
    x = torch.randn(shape, device=device, dtype=torch.float32) * 2
    lo = torch.tensor(float(param.get('lo', -1.0)), device=device, dtype=dtype)
    hi = torch.tensor(float(param.get('hi', 1.0)), device=device, dtype=dtype)
    return [x.to(dtype), lo, hi]


def get_init_inputs(param, device=None):
    return []
