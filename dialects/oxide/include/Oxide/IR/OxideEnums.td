//===- OxideEnums.td - oxide dialect enumerations ----------*- tablegen -*-===//
//
// The cases of every enum are the catalog's (include/oxide/detail/intrinsic_abi.hpp, whose
// enum classes the device headers pass to the intrinsics and the simulator decodes), generated
// into OxideAbiEnums.td at build time; this file adds the dialect's names and summaries.
//
//===----------------------------------------------------------------------===//

#ifndef OXIDE_ENUMS
#define OXIDE_ENUMS

include "mlir/IR/EnumAttr.td"
include "OxideAbiEnums.td"

def Oxide_Dim : I32EnumAttr<"Dim", "launch dimension", Oxide_DimCases> {
  let cppNamespace = "::oxide";
}

def Oxide_GeometryKind : I32EnumAttr<"GeometryKind", "launch geometry register",
    Oxide_GeometryKindCases> {
  let cppNamespace = "::oxide";
}

def Oxide_Scope : I32EnumAttr<"Scope", "memory scope", Oxide_ScopeCases> {
  let cppNamespace = "::oxide";
}

def Oxide_ShuffleMode : I32EnumAttr<"ShuffleMode", "warp shuffle source", Oxide_ShuffleModeCases> {
  let cppNamespace = "::oxide";
}

def Oxide_VoteMode : I32EnumAttr<"VoteMode", "warp vote", Oxide_VoteModeCases> {
  let cppNamespace = "::oxide";
}

def Oxide_ReduxKind : I32EnumAttr<"ReduxKind", "warp reduction of 32-bit integers",
    Oxide_ReduxKindCases> {
  let cppNamespace = "::oxide";
}

def Oxide_MatchKind : I32EnumAttr<"MatchKind", "warp match", Oxide_MatchKindCases> {
  let cppNamespace = "::oxide";
}

def Oxide_LaneMaskKind : I32EnumAttr<"LaneMaskKind", "lane mask register", Oxide_LaneMaskKindCases> {
  let cppNamespace = "::oxide";
}

def Oxide_ClockKind : I32EnumAttr<"ClockKind", "time source", Oxide_ClockKindCases> {
  let cppNamespace = "::oxide";
}

def Oxide_ClusterGeometryKind : I32EnumAttr<"ClusterGeometryKind", "thread-block cluster register",
    Oxide_ClusterGeometryKindCases> {
  let cppNamespace = "::oxide";
}

def Oxide_Group : I32EnumAttr<"Group", "a group of threads that owns outputs together",
    Oxide_GroupCases> {
  let cppNamespace = "::oxide";
}

def Oxide_Ownership : I32EnumAttr<"Ownership", "the write set of an owner of output elements",
    Oxide_OwnershipCases> {
  let cppNamespace = "::oxide";
}

def Oxide_WgmmaType : I32EnumAttr<"WgmmaType", "the multiplicands of a warpgroup MMA",
    Oxide_WgmmaTypeCases> {
  let cppNamespace = "::oxide";
}

def Oxide_CacheHint : I32EnumAttr<"CacheHint", "the cache operator of a global load or store",
    Oxide_CacheHintCases> {
  let cppNamespace = "::oxide";
}

#endif // OXIDE_ENUMS
