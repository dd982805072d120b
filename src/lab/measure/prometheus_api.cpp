// Prometheus' HTTP API answers decoded (see prometheus_api.h).
#include "lab/measure/prometheus_api.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace flowlab::lab {

using nlohmann::json;

namespace {

Result<PromLabels> labels_of(const json& j) {
  PromLabels out;
  if (!j.is_object()) return fail("prometheus: labels are not an object");
  for (const auto& [k, v] : j.items()) {
    if (!v.is_string()) return fail("prometheus: label '{}' is not a string", k);
    out[k] = v.get<std::string>();
  }
  return out;
}

// [1733380000.123, "42"]: a point; the value is a string as the API writes it.
Result<std::pair<double, double>> point_of(const json& j) {
  if (!j.is_array() || j.size() != 2 || !j[0].is_number() || !j[1].is_string())
    return fail("prometheus: a point is not [time, \"value\"]");
  const std::string& s = j[1].get_ref<const std::string&>();
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size()) return fail("prometheus: value '{}' is not a number", s);
  return std::pair{j[0].get<double>(), v};
}

Result<const json*> result_of(const json& data, const char* type) {
  if (!data.is_object()) return fail("prometheus: data is not an object");
  auto rt = data.find("resultType");
  if (rt == data.end() || !rt->is_string() || rt->get<std::string>() != type)
    return fail("prometheus: expected a {} result", type);
  auto r = data.find("result");
  if (r == data.end() || !r->is_array()) return fail("prometheus: the result is not a list");
  return &*r;
}

}  // namespace

Result<json> prom_data(std::string_view body) {
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return fail("prometheus: the answer is not JSON");
  auto status = j.find("status");
  if (status == j.end() || !status->is_string()) return fail("prometheus: the answer has no status");
  if (status->get<std::string>() != "success") {
    auto text = [&](const char* k) {
      auto it = j.find(k);
      return it != j.end() && it->is_string() ? it->get<std::string>() : std::string("?");
    };
    return fail("prometheus: {}: {}", text("errorType"), text("error"));
  }
  auto data = j.find("data");
  if (data == j.end()) return fail("prometheus: the answer has no data");
  return std::move(*data);
}

Result<std::vector<PromSample>> prom_vector(const json& data) {
  FLOWLAB_ASSIGN_OR_RETURN(const json* r, result_of(data, "vector"));
  std::vector<PromSample> out;
  for (const auto& e : *r) {
    if (!e.is_object() || !e.contains("metric") || !e.contains("value"))
      return fail("prometheus: a sample has no metric or value");
    PromSample s;
    FLOWLAB_ASSIGN_OR_RETURN(s.labels, labels_of(e["metric"]));
    FLOWLAB_ASSIGN_OR_RETURN(auto p, point_of(e["value"]));
    s.t = p.first;
    s.v = p.second;
    out.push_back(std::move(s));
  }
  return out;
}

Result<std::vector<PromSeries>> prom_matrix(const json& data) {
  FLOWLAB_ASSIGN_OR_RETURN(const json* r, result_of(data, "matrix"));
  std::vector<PromSeries> out;
  for (const auto& e : *r) {
    if (!e.is_object() || !e.contains("metric") || !e.contains("values") || !e["values"].is_array())
      return fail("prometheus: a series has no metric or values");
    PromSeries s;
    FLOWLAB_ASSIGN_OR_RETURN(s.labels, labels_of(e["metric"]));
    for (const auto& pj : e["values"]) {
      FLOWLAB_ASSIGN_OR_RETURN(auto p, point_of(pj));
      s.t.push_back(p.first);
      s.v.push_back(p.second);
    }
    out.push_back(std::move(s));
  }
  return out;
}

Result<std::vector<PromTarget>> prom_targets(const json& data) {
  if (!data.is_object() || !data.contains("activeTargets") || !data["activeTargets"].is_array())
    return fail("prometheus: no activeTargets");
  std::vector<PromTarget> out;
  for (const auto& e : data["activeTargets"]) {
    if (!e.is_object() || !e.contains("labels")) return fail("prometheus: a target has no labels");
    PromTarget t;
    FLOWLAB_ASSIGN_OR_RETURN(t.labels, labels_of(e["labels"]));
    if (auto h = e.find("health"); h != e.end() && h->is_string()) t.health = h->get<std::string>();
    if (auto le = e.find("lastError"); le != e.end() && le->is_string())
      t.last_error = le->get<std::string>();
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace flowlab::lab
