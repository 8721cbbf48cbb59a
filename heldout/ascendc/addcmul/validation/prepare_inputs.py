import torch


def get_inputs(param, device=None):
    shape = eval(param.get('shape', '[1]'))
    dtype = getattr(torch, param.get('dtype', 'float32'))
    input_data = torch.rand(shape, device=device, dtype=dtype) * 4 - 2
    x1 = torch.rand(shape, device=device, dtype=dtype) * 4 - 2
    x2 = torch.rand(shape, device=device, dtype=dtype) * 4 - 2
    return [input_data, x1, x2]


def get_init_inputs(param, device=None):
    return [float(param.get('value', 1.0))]
