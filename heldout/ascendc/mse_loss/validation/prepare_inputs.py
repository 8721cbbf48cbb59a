import torch


def get_inputs(param, device=None):
    shape = eval(param.get('shape', '[1]'))
    dtype = getattr(torch, param.get('dtype', 'float32'))
    predict = torch.rand(shape, device=device, dtype=dtype)
    label = torch.rand(shape, device=device, dtype=dtype)
    return [predict, label]


def get_init_inputs(param, device=None):
    return [param.get('reduction', 'mean')]
