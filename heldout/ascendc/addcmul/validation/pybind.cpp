#include <torch/extension.h>
#include <torch/library.h>
#include "pytorch_npu_helper.hpp"

at::Tensor custom_pybind_api(const at::Tensor &input_data, const at::Tensor &x1, const at::Tensor &x2, double value)
{
    at::Tensor y = at::empty_like(input_data);
    EXEC_NPU_CMD(aclnnCustomOp, input_data, x1, x2, value, y);
    return y;
}

PYBIND11_MODULE(kernel_gen_ops, m)
{
    m.def("custom_pybind_api", &custom_pybind_api, "Addcmul");
}
