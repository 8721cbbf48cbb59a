import torch


def get_inputs(param, device=None):
    shape = eval(param.get('shape', '[1, 1]'))
    x = torch.randn(shape, device=device, dtype=torch.float32)
    gamma = torch.rand(shape[-1:], device=device, dtype=torch.float32) + 0.5
    beta = torch.randn(shape[-1:], device=device, dtype=torch.float32)
    return (x, gamma, beta)


def get_init_inputs(param, device=None):
    return [float(param.get('eps', 1e-5))]


def custom_check_precision(param, outputs, outputs_new):
    dtype = getattr(torch, param.get('dtype', 'float32'))
    if dtype == torch.float16:
        RTOL_GENERAL = 1 / 512
    elif dtype == torch.bfloat16:
        RTOL_GENERAL = 1 / 256
    elif dtype == torch.float32:
        RTOL_GENERAL = 1 / 2048 + 1 / 16384
    outputs = outputs if isinstance(outputs, list) else [outputs]
    outputs_new = outputs_new if isinstance(outputs_new, list) else [outputs_new]
    is_pass, abs_diffs, rel_diffs = 1, [], []
    for out, out_new in zip(outputs, outputs_new):
        abs_diff = torch.abs(out - out_new)
        abs_diffs.append(abs_diff.view(-1))
        rel_diffs.append((abs_diff / (torch.abs(out) + 1e-7)).view(-1))
        if torch.any(abs_diff > RTOL_GENERAL * torch.clamp(torch.abs(out), min=1.0)):
            is_pass = 0
    return is_pass, torch.cat(abs_diffs), torch.cat(rel_diffs)
