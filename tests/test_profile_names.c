/*
 * test_profile_names.c - the names `memprobe profile` prints kernels by
 * (profile/profile_csv.c, mp_prof_short_name): the short name of a
 * demangled kernel name, on real names from the H200's profiles of
 * PyTorch, JAX, CuPy, cuBLAS and a C++ program
 * (results/h200/profile/real/, real-offender/) and on the corners of the
 * demangler's grammar (operators, unbalanced brackets, an empty name).
 * Pure functions, no program run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profile_csv.h"

/* The C++ runtime's demangler, as memprobe uses it. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
                            int *status);

static void expect_short(const char *demangled, const char *want)
{
    char *got = mp_prof_short_name(demangled);
    if (strcmp(got, want))
        fail_msg("short name of '%s': '%s', want '%s'", demangled, got, want);
    free(got);
}

/* PyTorch's copy kernel (torch_offender.csv, 814 characters): template
 * arguments with lambdas, parameter lists and "operator()" inside. */
static const char torch_copy[] =
    "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel"
    "_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIterato"
    "rBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator("
    ")() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native:"
    ":direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::o"
    "perator()() const::{lambda()#7}::operator()() const::{lambda(float"
    ")#1} const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_no"
    "cast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&):"
    ":{lambda()#3}::operator()() const::{lambda()#7}::operator()() cons"
    "t::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::direct_"
    "copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator("
    ")() const::{lambda()#7}::operator()() const::{lambda(float)#1} con"
    "st&)::{lambda(int)#1})";

static void pytorch(void **state)
{
    (void)state;
    assert_int_equal(strlen(torch_copy), 814);
    expect_short(torch_copy, "at::native::elementwise_kernel");
    expect_short(
        "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float,"
        " at::native::func_wrapper_t<float, at::native::sum_functor<float, "
        "float, float>::operator()(at::TensorIterator&)::{lambda(float, flo"
        "at)#1}>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, "
        "at::native::func_wrapper_t<float, at::native::sum_functor<float, f"
        "loat, float>::operator()(at::TensorIterator&)::{lambda(float, floa"
        "t)#1}>, unsigned int, float, 4, 4>)",
        "at::native::reduce_kernel");
    expect_short(
        "void at::native::vectorized_elementwise_kernel<4, at::native::(ano"
        "nymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c1"
        "0::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda("
        ")#1}::operator()() const::{lambda()#7}::operator()() const::{lambd"
        "a(float)#1}, std::array<char*, 2ul> >(int, at::native::(anonymous "
        "namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scal"
        "ar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::o"
        "perator()() const::{lambda()#7}::operator()() const::{lambda(float"
        ")#1}, std::array<char*, 2ul>)",
        "at::native::vectorized_elementwise_kernel");
    expect_short("void (anonymous namespace)::softmax_warp_forward<float, "
                 "float, float, 10, false, false>(float*, float const*, int, "
                 "int, int, bool const*, int, bool)",
                 "(anonymous namespace)::softmax_warp_forward");
}

/* The longest real name, 5050 characters once demangled (PyTorch's
 * normal distribution kernel), whole: never cut at a buffer's end. */
static void longest(void **state)
{
    (void)state;
    static const char mangled[] =
        "_ZN2at6native54_GLOBAL__N__d8ceb000_21_DistributionNormal_cu_0c5b6"
        "e8543distribution_elementwise_grid_stride_kernelIfLi4EZNS0_9templa"
        "tes4cuda20normal_and_transformIffPNS_17CUDAGeneratorImplEZZZNS4_13"
        "normal_kernelIS7_EEvRKNS_10TensorBaseEddT_ENKUlvE_clEvENKUlvE0_clE"
        "vEUlfE_EEvRNS_18TensorIteratorBaseET1_T2_EUlP24curandStatePhilox4_"
        "32_10E0_ZNS1_27distribution_nullary_kernelIff6float4S7_SM_SF_EEvSH"
        "_SJ_RKT3_T4_EUlifE_EEvlNS_15PhiloxCudaStateESI_SJ_";
    int status = -1;
    char *d = __cxa_demangle(mangled, NULL, NULL, &status);
    assert_int_equal(status, 0);
    assert_int_equal(strlen(d), 5050);
    expect_short(d, "at::native::(anonymous namespace)::"
                 "distribution_elementwise_grid_stride_kernel");
    free(d);
}

/* The C++ program's kernels (cpp_app.csv): templates, a lambda, the
 * anonymous namespace, C++ linkage without templates. */
static void cpp(void **state)
{
    (void)state;
    expect_short("void scale<float>(float const*, float*, int, float)",
                 "scale");
    expect_short("void scale<double>(double const*, double*, int, double)",
                 "scale");
    expect_short("void apply<main::{lambda(int)#1}>(main::{lambda(int)#1}, "
                 "float*, int)", "apply");
    expect_short("(anonymous namespace)::shifted(float const*, float*, int)",
                 "(anonymous namespace)::shifted");
    expect_short("transpose_tile(float const*, float*, int)",
                 "transpose_tile");
}

/* Names without a parameter list stay as they are: cuBLAS, XLA, CuPy,
 * Triton, extern "C". */
static void no_parameters(void **state)
{
    (void)state;
    static const char *const same[] = {
        ("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_"
         "warpsize1x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas"),
        "loop_add_fusion", "wrapped_dynamic_slice",
        "cupy_is_close__float32_float32_float_float_bool_bool",
        "add_kernel", "transpose_naive"};
    for (size_t k = 0; k < sizeof same / sizeof same[0]; k++)
        expect_short(same[k], same[k]);
}

/* XLA's and other namespaced kernels keep their namespaces. */
static void namespaces(void **state)
{
    (void)state;
    expect_short("void stream_executor::gpu::xla_fp_comparison<float>(float*,"
                 " float*, float, unsigned long, int*)",
                 "stream_executor::gpu::xla_fp_comparison");
    expect_short("stream_executor::gpu::(anonymous namespace)::DelayKernel("
                 "stream_executor::GpuSemaphoreState volatile*, "
                 "stream_executor::GpuSemaphoreState)",
                 "stream_executor::gpu::(anonymous namespace)::DelayKernel");
    expect_short("stream_executor::gpu::RepeatBufferKernelImpl(char*, long, "
                 "long)", "stream_executor::gpu::RepeatBufferKernelImpl");
    /* a template argument list inside the qualified name goes too */
    expect_short("void ns::Outer<int, 4>::inner<float>(float*)",
                 "ns::Outer::inner");
}

/* Operators' names are not brackets; broken names end without a crash. */
static void corners(void **state)
{
    (void)state;
    expect_short("void apply<&operator<, 2>(int)", "apply");
    expect_short("void apply<&ns::operator> >(int)", "apply");
    expect_short("void run<&S::operator()>(S)", "run");
    expect_short("ns::operator()(int)", "ns::operator()");
    expect_short("ns::operator<(int, int)", "ns::operator<");
    expect_short("ns::operator<< <int>(int)", "ns::operator<<");
    expect_short("f<int", "f");
    expect_short("f>(int)", "f>");
    expect_short("", "");
    expect_short("void ", "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pytorch),
        cmocka_unit_test(longest),
        cmocka_unit_test(cpp),
        cmocka_unit_test(no_parameters),
        cmocka_unit_test(namespaces),
        cmocka_unit_test(corners),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
