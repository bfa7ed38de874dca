// Sharing a device front end across major versions (compiler/frontend/ArchDependence.cpp): the
// headers of two architectures may differ only in conditionals whose sites the leader's compile
// then must not reach; any other difference, or a site the rules cannot see through, keeps the
// newer architecture's front end its own.
#include "oxide/compiler/ArchDependence.h"

#include <gtest/gtest.h>

namespace {

using oxide::ArchDependence;

constexpr const char *kHeader = "/cuda/include/crt/device_functions.hpp";

/// A record whose one conditional on the architecture, at kHeader:130, took `outcome`.
ArchDependence recordWith(const std::string &outcome, ArchDependence::Site site) {
  ArchDependence record;
  const std::string place = std::string(kHeader) + ":130";
  record.outcomes.push_back(place + ": " + outcome);
  site.file = kHeader;
  site.line = 130;
  site.endLine = 139;
  record.sites.emplace(place, std::move(site));
  return record;
}

ArchDependence::Site inBody(const std::string &owner, unsigned ownerLine) {
  ArchDependence::Site site;
  site.owner = owner;
  site.ownerLine = ownerLine;
  return site;
}

TEST(ArchDependenceTest, ADifferingConditionalInAFunctionBodyIsASiteToAvoid) {
  const ArchDependence sm80 = recordWith("undefined", inBody("__vimax_s32_relu", 129));
  const ArchDependence sm90 = recordWith("defined", inBody("__vimax_s32_relu", 129));
  std::set<std::string> differing;
  std::vector<ArchDependence::Site> sites;
  EXPECT_EQ(oxide::compareAcrossVersions(sm80, sm90, differing, sites), "");
  ASSERT_EQ(sites.size(), 2u); // one per record: each branch's site
  EXPECT_EQ(sites[0].owner, "__vimax_s32_relu");
  // Within one major version the same records do not agree.
  EXPECT_NE(oxide::compareArchDependence(sm80, sm90, differing), "");
}

TEST(ArchDependenceTest, AnOpaqueSiteOrOneWithoutARecordKeepsTheFrontEndsApart) {
  ArchDependence::Site opaque = inBody("f", 1);
  opaque.opaque = "it holds an #include";
  std::set<std::string> differing;
  std::vector<ArchDependence::Site> sites;
  const std::string why = oxide::compareAcrossVersions(recordWith("false", inBody("f", 1)),
                                                       recordWith("true", opaque), differing, sites);
  EXPECT_NE(why.find("holds an #include"), std::string::npos) << why;
  EXPECT_TRUE(sites.empty());

  ArchDependence withoutSite = recordWith("true", inBody("f", 1));
  withoutSite.sites.clear();
  EXPECT_NE(oxide::compareAcrossVersions(recordWith("false", inBody("f", 1)), withoutSite, differing, sites),
            "");
  EXPECT_TRUE(sites.empty());
}

TEST(ArchDependenceTest, TheArchitectureInCodeIsNeverShared) {
  ArchDependence a = recordWith("true", inBody("f", 1)), b = a;
  b.codeUse = "/cuda/include/x.h:3: __CUDA_ARCH__";
  std::set<std::string> differing;
  std::vector<ArchDependence::Site> sites;
  EXPECT_NE(oxide::compareAcrossVersions(a, b, differing, sites), "");
}

TEST(ArchDependenceTest, SameOutcomesNeedNoSites) {
  const ArchDependence a = recordWith("true", inBody("f", 1));
  std::set<std::string> differing;
  std::vector<ArchDependence::Site> sites;
  EXPECT_EQ(oxide::compareAcrossVersions(a, a, differing, sites), "");
  EXPECT_TRUE(sites.empty());
}

TEST(ArchDependenceTest, TheCompileReachesASiteByNamingItsOwnerOrADeclaration) {
  ArchDependence::Site fileScope;
  fileScope.file = "/llvm/include/__clang_cuda_intrinsics.h";
  fileScope.line = 865;
  fileScope.endLine = 991;
  fileScope.names = {"__clusterDim", "__isCtaShared"};
  ArchDependence::Site body = inBody("__vimax_s32_relu", 129);
  body.file = kHeader;
  body.line = 130;
  body.endLine = 139;

  ArchDependence seen;
  seen.mustNotReach = {fileScope, body};
  seen.checkIdentifiers({"main", "__clusterDim"});
  EXPECT_NE(seen.whyReached({fileScope}).find("__clusterDim"), std::string::npos);
  EXPECT_EQ(seen.whyReached({body}), ""); // another follower's site, not reached
  seen.checkIdentifiers({"__vimax_s32_relu"});
  EXPECT_NE(seen.whyReached({body}).find("__vimax_s32_relu"), std::string::npos);
}

TEST(ArchDependenceTest, SitesSurviveTheCachedRecord) {
  ArchDependence::Site site = inBody("__vimax_s32_relu", 129);
  site.names = {"a", "b"};
  site.opaque = "its branches do not balance their braces";
  const ArchDependence record = recordWith("defined", site);
  const std::optional<ArchDependence> back = ArchDependence::deserialize(record.serialize());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->outcomes, record.outcomes);
  EXPECT_EQ(back->sites, record.sites);
}

TEST(ArchDependenceTest, ARecordOfAnOlderFormatIsComputedAgain) {
  // What oxcc kept before records had sites: without them, a cached record would let a newer
  // architecture share a front end its headers differ from.
  EXPECT_FALSE(ArchDependence::deserialize("code \nif /cuda/include/x.h:1: true\n"));
}

} // namespace
