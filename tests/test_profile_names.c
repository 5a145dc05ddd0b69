/*
 * test_profile_names.c - the names `memprobe profile` prints kernels by
 * (profile/profile_names.c, mp_prof_short_name): the short name of a
 * demangled kernel name, on real names from the H200's profiles of
 * PyTorch, JAX, CuPy, cuBLAS and a C++ program
 * (results/h200/profile/real/, real-offender/) and on the corners of the
 * demangler's grammar (operators, unbalanced brackets, an empty name);
 * the names that tell apart kernels of one short name
 * (mp_prof_tell_apart), and ratios printed with the digits that show an
 * excess (mp_prof_fmt_ratio_from). Pure functions, no program run.
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

/* Names of the n kernels of `in` as mp_prof_tell_apart gives them. */
static void expect_apart(const char *const *in, const char *const *want,
                         int n)
{
    char *out[8];
    mp_prof_tell_apart(in, n, out);
    for (int k = 0; k < n; k++) {
        if (strcmp(out[k], want[k]))
            fail_msg("kernel %d of %d: '%s', want '%s'", k, n, out[k],
                     want[k]);
        free(out[k]);
    }
}

/* Two instantiations of one template: their template arguments, not
 * "#1" and "#2"; a short list whole, a long one with the arguments they
 * share as "..." and the long ones cut. */
static void templates_apart(void **state)
{
    (void)state;
    const char *tile[] = {"void tile_t<float, 32>(float const*, float*, int)",
                          "void tile_t<int, 16>(int const*, int*, int)"};
    const char *tile_want[] = {"tile_t<float, 32>", "tile_t<int, 16>"};
    expect_apart(tile, tile_want, 2);
    const char *scale[] = {
        "void scale<float>(float const*, float*, int, float)",
        "void scale<double>(double const*, double*, int, double)"};
    const char *scale_want[] = {"scale<float>", "scale<double>"};
    expect_apart(scale, scale_want, 2);
    const char *ew[] = {
        "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_"
        "impl<at::native::AddFunctor<float> >(at::TensorIteratorBase&)::{lam"
        "bda(int)#1}>(int, at::native::gpu_kernel_impl<at::native::AddFuncto"
        "r<float> >(at::TensorIteratorBase&)::{lambda(int)#1})",
        "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_"
        "impl<at::native::AddFunctor<float> >(at::TensorIteratorBase&)::{lam"
        "bda(int)#1}>(int, at::native::gpu_kernel_impl<at::native::AddFuncto"
        "r<float> >(at::TensorIteratorBase&)::{lambda(int)#1})",
        "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_"
        "impl<at::native::MulFunctor<float> >(at::TensorIteratorBase&)::{lam"
        "bda(int)#1}>(int, at::native::gpu_kernel_impl<at::native::MulFuncto"
        "r<float> >(at::TensorIteratorBase&)::{lambda(int)#1})"};
    const char *ew_want[] = {
        "at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<"
        "at::native::AddFunctor<float>...>",
        "at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<"
        "at::native::AddFunctor<float>...>",
        "at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<"
        "at::native::MulFunctor<float>...>"};
    expect_apart(ew, ew_want, 3);
}

/* Numba's ABI tags dropped; kernels alike but for their parameters told
 * apart by those; names that nothing tells apart numbered. */
static void parameters_and_numbers(void **state)
{
    (void)state;
    static const char numba[] =
        "__main__::tile_transpose[abi:v1,cw51cXTLSUwv1sCUt9Uw1VEw0NRRQPKiLTj0"
        "gIGIFp_2b2oLQFEYYkHSQB1OQAk0Bynm21OizQ1K0UoIGvDpQE8oxrNQE_3d_3d](Arr"
        "ay<float, 2, C, mutable, aligned>, Array<float, 2, C, mutable, align"
        "ed>)";
    expect_short(numba, "__main__::tile_transpose");
    expect_short("void f[abi:cxx11]<int>(int)", "f");
    const char *nb[] = {
        "__main__::k[abi:v1,cw51](Array<float, 1, C, mutable, aligned>, int)",
        "__main__::k[abi:v1,cw51](Array<int, 1, C, mutable, aligned>, int)"};
    const char *nb_want[] = {
        "__main__::k(Array<float, 1, C, mutable, aligned>, int)",
        "__main__::k(Array<int, 1, C, mutable, aligned>, int)"};
    expect_apart(nb, nb_want, 2);
    const char *same[] = {"void g(int)", "g(int)", "void h<1>(float)"};
    const char *same_want[] = {"g#1", "g#2", "h<1>"};
    expect_apart(same, same_want, 2);
}

static void expect_ratio(double r, double from, const char *want)
{
    char buf[32];
    mp_prof_fmt_ratio_from(r, from, buf, sizeof buf);
    if (strcmp(buf, want))
        fail_msg("ratio %.15g against %g: '%s', want '%s'", r, from, buf,
                 want);
}

/* Two decimals (a second zero dropped) unless they hide the side of
 * `from` the ratio lies on. */
static void ratio_digits(void **state)
{
    (void)state;
    expect_ratio(32.0, 1.0, "32.0");
    expect_ratio(1.5, 1.0, "1.5");
    expect_ratio(1.26, 1.0, "1.26");
    expect_ratio(1.0, 1.0, "1.0");
    expect_ratio(1.0001, 1.0, "1.0001");      /* not "1.0" */
    expect_ratio(10001.0 / 10000.0, 1.0, "1.0001");
    expect_ratio(0.9999, 1.0, "0.9999");
    expect_ratio(1.2501, 1.25, "1.2501");     /* above a limit of 1.25 */
    expect_ratio(1.004, 1.0, "1.004");         /* "1.00" would hide it */
    expect_ratio(1.006, 1.0, "1.01");          /* shows the excess already */
    char buf[32];
    mp_prof_fmt_ratio(1.00002, buf, sizeof buf);
    assert_string_equal(buf, "1.00002");
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
        cmocka_unit_test(templates_apart),
        cmocka_unit_test(parameters_and_numbers),
        cmocka_unit_test(ratio_digits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
