// The options of oxcc build, run, check and compile (parsed in Options.cpp, parseOptions).
// What users read is the help in oxcc.cpp; an option's checks and messages are in its case
// there. Options a compile command may carry that oxcc does not need (the CMake launcher form
// of `oxcc compile`) are not declared: they arrive as unknown and are ignored there.
include "llvm/Option/OptParser.td"

def help : Flag<["--"], "help">;
def : Flag<["-"], "h">, Alias<help>;

// Inputs and outputs.
def o : JoinedOrSeparate<["-"], "o">;
def I : JoinedOrSeparate<["-"], "I">;
def isystem : JoinedOrSeparate<["-"], "isystem">;
def iquote : JoinedOrSeparate<["-"], "iquote">;
def idirafter : JoinedOrSeparate<["-"], "idirafter">;
def D : JoinedOrSeparate<["-"], "D">;
def U : JoinedOrSeparate<["-"], "U">; // compile only: ignored with a warning
def x : Separate<["-"], "x">;         // compile only: c++ or cuda

// Warnings: to the host compile, and to the device compile less those that make errors (it prints
// only the warnings of code the host compile does not see). -Wl, (below) is the link's.
def W_Joined : Joined<["-"], "W">;
def w : Flag<["-"], "w">;
def pedantic : Flag<["-", "--"], "pedantic">;
def pedantic_errors : Flag<["-"], "pedantic-errors">;

// The link (build and run).
def l : JoinedOrSeparate<["-"], "l">;
def L : JoinedOrSeparate<["-"], "L">;
def Wl_COMMA : Joined<["-"], "Wl,">;

// Depfiles (compile).
def MD : Flag<["-"], "MD">;
def MMD : Flag<["-"], "MMD">;
def MF : JoinedOrSeparate<["-"], "MF">;
def MT : JoinedOrSeparate<["-"], "MT">;
def MQ : JoinedOrSeparate<["-"], "MQ">;

// Code generation. -O takes 0-3, s, z, g, fast or nothing.
def O : Joined<["-"], "O">;
def std_EQ : Joined<["-"], "std=">;
def arch_EQ : Joined<["--", "-"], "arch=">;
def : Separate<["--", "-"], "arch">, Alias<arch_EQ>;
def : Joined<["--"], "gpu-architecture=">, Alias<arch_EQ>;
def : Separate<["--"], "gpu-architecture">, Alias<arch_EQ>;
def : Joined<["--"], "cuda-gpu-arch=">, Alias<arch_EQ>;
def : Separate<["--"], "cuda-gpu-arch">, Alias<arch_EQ>;
def : Joined<["--"], "offload-arch=">, Alias<arch_EQ>;
def : Separate<["--"], "offload-arch">, Alias<arch_EQ>;
def emit_EQ : Joined<["--"], "emit=">;
def threads_EQ : Joined<["--"], "threads=">;
def : Separate<["--"], "threads">, Alias<threads_EQ>;

def fast_math : Flag<["--"], "fast-math">;
def : Flag<["--", "-"], "use_fast_math">, Alias<fast_math>;
def : Flag<["-"], "ffast-math">, Alias<fast_math>;

def no_fmad : Flag<["--"], "no-fmad">;
def : Flag<["--", "-"], "fmad=false">, Alias<no_fmad>;
def : Flag<["-"], "ffp-contract=off">, Alias<no_fmad>;
def fmad : Flag<["--", "-"], "fmad=true">;
def : Flag<["-"], "ffp-contract=fast">, Alias<fmad>;
def : Flag<["-"], "ffp-contract=on">, Alias<fmad>;

def g0 : Flag<["-"], "g0">;
def g : Flag<["-"], "g">;
def : Flag<["-"], "g1">, Alias<g>;
def : Flag<["-"], "g2">, Alias<g>;
def : Flag<["-"], "g3">, Alias<g>;
def : Flag<["-"], "ggdb">, Alias<g>;
def : Flag<["-"], "gline-tables-only">, Alias<g>;
def G : Flag<["-"], "G">;
def : Flag<["--"], "device-debug">, Alias<G>;
def lineinfo : Flag<["--", "-"], "lineinfo">;
def : Flag<["--"], "generate-line-info">, Alias<lineinfo>;
// `-line-info` as users type it; without it the linker flag -l took it as a library name.
def : Flag<["--", "-"], "line-info">, Alias<lineinfo>;
def fsanitize_EQ : Joined<["-"], "fsanitize=">;
// Paths in what the build writes, as GCC and clang take them: OLD=NEW.
def ffile_prefix_map_EQ : Joined<["-"], "ffile-prefix-map=">;
def fmacro_prefix_map_EQ : Joined<["-"], "fmacro-prefix-map=">;
def fdebug_prefix_map_EQ : Joined<["-"], "fdebug-prefix-map=">;
// nvcc's ptxas pass-through (comma lists, repeatable) and resource report.
def Xptxas : Separate<["-", "--"], "Xptxas">;
def : Joined<["--"], "ptxas-options=">, Alias<Xptxas>;
def : Separate<["--"], "ptxas-options">, Alias<Xptxas>;
def resource_usage : Flag<["--", "-"], "resource-usage">;
def no_occupancy_step : Flag<["--"], "no-occupancy-step">;
// Colours of diagnostics, as clang and GCC spell them (CMake's CMAKE_COLOR_DIAGNOSTICS too).
def fdiagnostics_color : Flag<["-"], "fdiagnostics-color">;
def fdiagnostics_color_EQ : Joined<["-"], "fdiagnostics-color=">;
def fno_diagnostics_color : Flag<["-"], "fno-diagnostics-color">;
def : Flag<["-"], "fcolor-diagnostics">, Alias<fdiagnostics_color>;
def : Flag<["-"], "fno-color-diagnostics">, Alias<fno_diagnostics_color>;

// The driver itself.
def v : Flag<["-"], "v">;
def save_temps : Flag<["--", "-"], "save-temps">;
def : Flag<["-"], "save-temps=obj">, Alias<save_temps>;
def save_temps_cwd : Flag<["-"], "save-temps=cwd">;
def save_temps_EQ : Joined<["--"], "save-temps=">;
def no_cache : Flag<["--"], "no-cache">;
// oxcc build: a shared library (the C ABI of oxide/c_api.h; docs/interop.md) instead of an executable.
def shared : Flag<["--", "-"], "shared">;

// oxcc check.
def unsafe_report : Flag<["--"], "unsafe-report">;
