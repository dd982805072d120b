// libFuzzer: Prometheus' HTTP API answers as the lab reads them
// (src/lab/measure/prometheus_api.h): the envelope, vectors, matrices, targets.
// Bad input must be an error value, never an exception or a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "lab/measure/prometheus_api.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace flowlab::lab;
  auto d = prom_data(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!d.ok()) return 0;
  (void)prom_vector(*d);
  (void)prom_matrix(*d);
  (void)prom_targets(*d);
  return 0;
}
