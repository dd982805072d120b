// fmt's compiled part, built once here instead of in every file that formats.
//
// Debian ships fmt as a shared library and headers only. Header-only fmt
// (FMT_HEADER_ONLY) generates its formatting core in every translation unit
// that calls fmt::format: 2.8 s of -O3 per file, two fifths of the Release
// build's CPU (docs/performance/build.md). The shared library costs every
// process a loader step. So the core is compiled once, in this file, from
// fmt's own implementation header, and linked statically like the rest.
// The explicit instantiations are the templates format.h declares extern.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
template auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template auto decimal_point_impl<char>(locale_ref) -> char;
}  // namespace detail
FMT_END_NAMESPACE
