// The kernel registry, driven the way compiled programs drive it: through
// __oxide_register_image with an encoded image and the kernels' host addresses.
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "oxide/detail/host/registry.hpp"
#include "oxide/device/span.hpp"
#include "oxide/host/error.hpp"
#include "oxide/host/launch.hpp"

namespace {

using namespace oxide::detail;

// Stand-ins for kernels: host functions whose addresses are registered. Distinct bodies keep
// the linker from folding them into one address.
volatile int side_effect = 0;
void fake_vecadd(oxide::Span<const float>, oxide::Span<const float>, oxide::DisjointSpan<float>) {
  side_effect = 1;
}
void fake_scale(oxide::Span<float>, float) { side_effect = 2; }
void never_registered(int) { side_effect = 3; }
void fake_c_kernel(int) { side_effect = 4; }

constexpr const char *kVecaddEntry = "_Z6vecaddN5oxide4SpanIKfEES2_NS_12DisjointSpanIfEE";

void register_image(const DeviceImage &image, std::span<const void *const> addresses,
                    std::span<const char *const> names) {
  const std::string bytes = encode_image(image);
  __oxide_register_image(reinterpret_cast<const unsigned char *>(bytes.data()), bytes.size(),
                         addresses.data(), names.data(), addresses.size());
}

class RegistryTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    DeviceImage image;
    image.code.push_back({CodeKind::Ptx, 80, "// ptx"});
    image.kernels.push_back({kVecaddEntry, {{16, 8}, {16, 8}, {16, 8}}});
    image.kernels.push_back({"_Z5scaleIfEvN5oxide4SpanIT_EEf", {{16, 8}, {4, 4}}});
    const std::array<const void *, 2> addresses{reinterpret_cast<const void *>(&fake_vecadd),
                                                reinterpret_cast<const void *>(&fake_scale)};
    const std::array<const char *, 2> names{kVecaddEntry, "_Z5scaleIfEvN5oxide4SpanIT_EEf"};
    register_image(image, addresses, names);
  }
};

TEST_F(RegistryTest, FindsRegisteredKernelsByHostAddress) {
  const auto vecadd = find_kernel(reinterpret_cast<const void *>(&fake_vecadd));
  ASSERT_TRUE(vecadd.has_value());
  EXPECT_EQ(vecadd->entry_name(), kVecaddEntry);
  EXPECT_EQ(vecadd->display_name, "vecadd");
  ASSERT_EQ(vecadd->info->params.size(), 3u);
  EXPECT_EQ(vecadd->info->params[2], (ParamLayout{16, 8}));
  ASSERT_NE(vecadd->image, nullptr);
  EXPECT_EQ(vecadd->image->code.at(0).bytes, "// ptx");

  const auto scale = find_kernel(reinterpret_cast<const void *>(&fake_scale));
  ASSERT_TRUE(scale.has_value());
  EXPECT_EQ(scale->display_name, "scale<float>");
  EXPECT_EQ(scale->image_index, vecadd->image_index); // same image, so one module per context
}

TEST_F(RegistryTest, UnregisteredFunctionIsNotFound) {
  EXPECT_FALSE(find_kernel(reinterpret_cast<const void *>(&never_registered)).has_value());
  try {
    (void)require_kernel(reinterpret_cast<const void *>(&never_registered));
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("oxide: function ", 0), 0u) << what;
    EXPECT_NE(what.find(" at 0x"), std::string::npos) << what;
    EXPECT_NE(what.find("is not a registered kernel; mark it [[kernel]] and build with oxcc"),
              std::string::npos)
        << what;
  }
}

TEST_F(RegistryTest, LaterImagesGetTheirOwnIndexAndFirstRegistrationWins) {
  DeviceImage image;
  image.code.push_back({CodeKind::Ptx, 80, "// second"});
  image.kernels.push_back({kVecaddEntry, {{16, 8}, {16, 8}, {16, 8}}});
  image.kernels.push_back({"c_kernel", {{4, 4}}});
  const std::array<const void *, 2> addresses{reinterpret_cast<const void *>(&fake_vecadd),
                                              reinterpret_cast<const void *>(&fake_c_kernel)};
  const std::array<const char *, 2> names{kVecaddEntry, "c_kernel"};
  const auto before = find_kernel(reinterpret_cast<const void *>(&fake_vecadd));
  register_image(image, addresses, names);

  const auto vecadd = find_kernel(reinterpret_cast<const void *>(&fake_vecadd));
  ASSERT_TRUE(vecadd.has_value());
  EXPECT_EQ(vecadd->image_index, before->image_index);
  const auto plain = find_kernel(reinterpret_cast<const void *>(&fake_c_kernel));
  ASSERT_TRUE(plain.has_value());
  EXPECT_NE(plain->image_index, vecadd->image_index);
  EXPECT_EQ(plain->display_name, "c_kernel"); // extern "C" names are shown as they are
}

TEST_F(RegistryTest, ParamLayoutMustMatchTheHostSignature) {
  const auto vecadd = *find_kernel(reinterpret_cast<const void *>(&fake_vecadd));
  const std::array<HostParam, 3> good{host_param<oxide::Span<const float>>(),
                                      host_param<oxide::Span<const float>>(),
                                      host_param<oxide::DisjointSpan<float>>()};
  EXPECT_NO_THROW(check_param_layout(vecadd, good));

  const std::array<HostParam, 3> bad{host_param<oxide::Span<const float>>(),
                                     host_param<oxide::Span<const float>>(), host_param<int>()};
  try {
    check_param_layout(vecadd, bad);
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_STREQ(e.what(),
                 "oxide: kernel 'vecadd' parameter 3 (int) is 4 bytes aligned to 4 on the host but 16 "
                 "bytes aligned to 8 in the device image; rebuild the program with oxcc");
    EXPECT_EQ(e.kernel(), "vecadd");
  }
  EXPECT_THROW(check_param_layout(vecadd, std::span(good).first(2)), oxide::Error);
}

TEST(KernelDisplayName, StripsParametersAndReturnType) {
  EXPECT_EQ(kernel_display_name(kVecaddEntry), "vecadd");
  EXPECT_EQ(kernel_display_name("_ZN12_GLOBAL__N_16kernelEi"), "(anonymous namespace)::kernel");
  EXPECT_EQ(kernel_display_name("_ZN2ns4stepIiLi3EEEvN5oxide4SpanIT_EE"), "ns::step<int, 3>");
  EXPECT_EQ(kernel_display_name("plain_c_name"), "plain_c_name");
}

TEST(SelectCode, PrefersExactCubinThenOlderCubinOfTheSameMajorThenNewestCompatiblePtx) {
  DeviceImage image;
  image.code.push_back({CodeKind::Ptx, 70, "ptx70"});
  image.code.push_back({CodeKind::Ptx, 80, "ptx80"});
  image.code.push_back({CodeKind::Ptx, 100, "ptx100"});
  image.code.push_back({CodeKind::Cubin, 90, "sass90"});
  image.code.push_back({CodeKind::Cubin, 80, "sass80"});
  EXPECT_EQ(select_code(image, 90)->bytes, "sass90");
  EXPECT_EQ(select_code(image, 80)->bytes, "sass80");
  EXPECT_EQ(select_code(image, 89)->bytes, "sass80");  // sm_8x runs sm_80 SASS: no JIT
  EXPECT_EQ(select_code(image, 120)->bytes, "ptx100"); // no SASS of major 12: newest PTX it can JIT
  EXPECT_EQ(select_code(image, 100)->bytes, "ptx100"); // sm_90 SASS does not run on sm_100
  EXPECT_EQ(select_code(image, 75)->bytes, "ptx70");   // sm_80 SASS is newer than sm_75
  EXPECT_EQ(select_code(image, 60), nullptr);          // all code is too new
  EXPECT_EQ(select_code(DeviceImage{}, 90), nullptr);
}

TEST(SelectCode, ExactCubinWinsOverAnOlderOneAndOverPtxInAnyOrder) {
  DeviceImage image;
  image.code.push_back({CodeKind::Ptx, 86, "ptx86"});
  image.code.push_back({CodeKind::Cubin, 86, "sass86"});
  image.code.push_back({CodeKind::Cubin, 80, "sass80"});
  image.code.push_back({CodeKind::Cubin, 89, "sass89"});
  EXPECT_EQ(select_code(image, 86)->bytes, "sass86");
  EXPECT_EQ(select_code(image, 87)->bytes, "sass86"); // the newest not newer than the device
  EXPECT_EQ(select_code(image, 89)->bytes, "sass89");
  EXPECT_EQ(select_code(image, 80)->bytes, "sass80");
}

// What `oxcc build` embeds without --arch (defaultGpuArchs in the compiler): sm_80, sm_86,
// sm_89 and sm_90 cubins and sm_90 PTX. Every listed GPU, and the other sm_8x ones, loads a
// cubin; newer GPUs JIT the PTX; older ones have nothing to run.
TEST(SelectCode, DefaultImageNeedsNoJitOnTheListedGpus) {
  DeviceImage image;
  image.code.push_back({CodeKind::Cubin, 80, "sass80"});
  image.code.push_back({CodeKind::Cubin, 86, "sass86"});
  image.code.push_back({CodeKind::Cubin, 89, "sass89"});
  image.code.push_back({CodeKind::Ptx, 90, "ptx90"});
  image.code.push_back({CodeKind::Cubin, 90, "sass90"});
  EXPECT_EQ(select_code(image, 80)->bytes, "sass80");
  EXPECT_EQ(select_code(image, 86)->bytes, "sass86");
  EXPECT_EQ(select_code(image, 87)->bytes, "sass86");
  EXPECT_EQ(select_code(image, 89)->bytes, "sass89");
  EXPECT_EQ(select_code(image, 90)->bytes, "sass90");
  EXPECT_EQ(select_code(image, 100)->bytes, "ptx90");
  EXPECT_EQ(select_code(image, 120)->bytes, "ptx90");
  EXPECT_EQ(select_code(image, 75), nullptr);
}

// A translation unit whose kernels use wgmma or setmaxnreg is compiled for sm_90a: that code
// loads on compute capability 9.0 only, PTX as well as cubin, and outranks portable sm_90 code.
TEST(SelectCode, ArchSpecificCodeRunsOnItsOwnArchitectureOnly) {
  DeviceImage image;
  image.code.push_back({CodeKind::Ptx, 90, "ptx90a", CodeFeatures::ArchSpecific});
  image.code.push_back({CodeKind::Cubin, 90, "sass90a", CodeFeatures::ArchSpecific});
  EXPECT_EQ(select_code(image, 90)->bytes, "sass90a");
  EXPECT_EQ(select_code(image, 100), nullptr); // sm_90a PTX does not JIT for later GPUs
  EXPECT_EQ(select_code(image, 120), nullptr);
  EXPECT_EQ(select_code(image, 89), nullptr);
  image.code.erase(image.code.begin() + 1);
  EXPECT_EQ(select_code(image, 90)->bytes, "ptx90a");
  image.code.push_back({CodeKind::Ptx, 90, "ptx90"});
  EXPECT_EQ(select_code(image, 90)->bytes, "ptx90a");
  EXPECT_EQ(select_code(image, 100)->bytes, "ptx90");
  EXPECT_EQ(code_target_name(image.code[0]), "sm_90a");
  EXPECT_EQ(code_target_name(image.code[1]), "sm_90");
}

TEST(RegistryDeathTest, MalformedImageAbortsWithInternalError) {
  const unsigned char garbage[] = {'N', 'O', 'T', 'A', 'N', 'I', 'M', 'G', 1, 0, 0, 0};
  EXPECT_DEATH(__oxide_register_image(garbage, sizeof garbage, nullptr, nullptr, 0),
               "oxide: internal error: malformed device image \\(12 bytes\\)");
}

TEST(RegistryDeathTest, KernelMissingFromItsImageAborts) {
  const std::string bytes = encode_image(DeviceImage{});
  const void *address = reinterpret_cast<const void *>(&never_registered);
  const char *name = "not_in_image";
  EXPECT_DEATH(__oxide_register_image(reinterpret_cast<const unsigned char *>(bytes.data()), bytes.size(),
                                      &address, &name, 1),
               "kernel 'not_in_image' is registered but not described by its device image");
}

} // namespace
