//===- OxideEnums.td - oxide dialect enumerations ----------*- tablegen -*-===//

#ifndef OXIDE_ENUMS
#define OXIDE_ENUMS

include "mlir/IR/EnumAttr.td"

def Oxide_Dim : I32EnumAttr<"Dim", "launch dimension", [
    I32EnumAttrCase<"x", 0>, I32EnumAttrCase<"y", 1>, I32EnumAttrCase<"z", 2>]> {
  let cppNamespace = "::oxide";
}

def Oxide_GeometryKind : I32EnumAttr<"GeometryKind", "launch geometry register", [
    I32EnumAttrCase<"thread_idx", 0>, I32EnumAttrCase<"block_idx", 1>,
    I32EnumAttrCase<"block_dim", 2>, I32EnumAttrCase<"grid_dim", 3>]> {
  let cppNamespace = "::oxide";
}

def Oxide_Scope : I32EnumAttr<"Scope", "memory scope", [
    I32EnumAttrCase<"block", 0>, I32EnumAttrCase<"device", 1>, I32EnumAttrCase<"system", 2>]> {
  let cppNamespace = "::oxide";
}

def Oxide_ShuffleMode : I32EnumAttr<"ShuffleMode", "warp shuffle source", [
    I32EnumAttrCase<"idx", 0>, I32EnumAttrCase<"up", 1>, I32EnumAttrCase<"down", 2>,
    I32EnumAttrCase<"bfly", 3, "xor">]> {
  let cppNamespace = "::oxide";
}

def Oxide_VoteMode : I32EnumAttr<"VoteMode", "warp vote", [
    I32EnumAttrCase<"all", 0>, I32EnumAttrCase<"any", 1>, I32EnumAttrCase<"ballot", 2>]> {
  let cppNamespace = "::oxide";
}

def Oxide_ReduxKind : I32EnumAttr<"ReduxKind", "warp reduction of 32-bit integers", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"min", 1>, I32EnumAttrCase<"max", 2>,
    I32EnumAttrCase<"umin", 3>, I32EnumAttrCase<"umax", 4>, I32EnumAttrCase<"and_", 5, "and">,
    I32EnumAttrCase<"or_", 6, "or">, I32EnumAttrCase<"xor_", 7, "xor">]> {
  let cppNamespace = "::oxide";
}

def Oxide_MatchKind : I32EnumAttr<"MatchKind", "warp match", [
    I32EnumAttrCase<"any", 0>, I32EnumAttrCase<"all", 1>]> {
  let cppNamespace = "::oxide";
}

def Oxide_ClockKind : I32EnumAttr<"ClockKind", "time source", [
    I32EnumAttrCase<"clock64", 0>, I32EnumAttrCase<"globaltimer", 1>]> {
  let cppNamespace = "::oxide";
}

def Oxide_ClusterGeometryKind : I32EnumAttr<"ClusterGeometryKind", "thread-block cluster register", [
    I32EnumAttrCase<"block_rank", 0>, I32EnumAttrCase<"block_count", 1>,
    I32EnumAttrCase<"block_idx", 2>, I32EnumAttrCase<"cluster_dim", 3>,
    I32EnumAttrCase<"cluster_idx", 4>, I32EnumAttrCase<"grid_clusters", 5>]> {
  let cppNamespace = "::oxide";
}

#endif // OXIDE_ENUMS
