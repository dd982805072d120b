// The sampler's CPU means are the stream's: stream_samples() picks the ticks a TCP
// stream ran through, leaving out the start-up and wind-down ticks.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "lab/measure/sampler.h"

namespace flowlab::lab {
namespace {

using nlohmann::json;

TEST(StreamSamples, TicksTheStreamRanThroughWithoutItsFirstPartialInterval) {
  json t_s = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8};
  json tcp = {{"t_s", {0.3, 0.4, 0.5, 0.6}}};  // the socket seen at 0.3 .. 0.6
  auto [lo, hi] = stream_samples(t_s, tcp);
  EXPECT_EQ(lo, 3u);  // 0.4: the interval 0.3-0.4 is all stream
  EXPECT_EQ(hi, 6u);  // up to 0.6 included
  json busy = {0, 10, 50, 100, 100, 100, 40, 0};
  EXPECT_DOUBLE_EQ(series_mean(busy, lo, hi), 100);
  EXPECT_DOUBLE_EQ(series_mean(busy), 50);
}

TEST(StreamSamples, AllTicksWithoutAStreamOrWithTooFewSamples) {
  json t_s = {0.1, 0.2, 0.3};
  EXPECT_EQ(stream_samples(t_s, json::object()), (std::pair<size_t, size_t>{0, 3}));
  EXPECT_EQ(stream_samples(t_s, json{{"t_s", {0.2, 0.3}}}), (std::pair<size_t, size_t>{0, 3}));
  EXPECT_EQ(stream_samples(json::array(), json{{"t_s", {0.1, 0.2, 0.3}}}), (std::pair<size_t, size_t>{0, 0}));
  EXPECT_DOUBLE_EQ(series_mean(json{1, 2}, 1, 1), 0);
  EXPECT_DOUBLE_EQ(series_mean(json{1, 2}, 0, 9), 1.5);
}

}  // namespace
}  // namespace flowlab::lab
