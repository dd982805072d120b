// The topology picture of report.html, drawn by flowlab as inline SVG: switches
// (squares, labelled with name and kind), hosts (circles, name and address), links
// (labelled with their parameters; coloured and widened by measured load when the
// case recorded per-interface byte counts).
//
// Layout: layered. The root is the most central switch (smallest eccentricity in the
// switch graph); every node sits on the row of its BFS distance from it, in the order
// BFS finds it, so a tree draws as a tree and a line draws as two branches.
//
// Input: the results.json "topology" record
//   {generator?, hosts:[{name, addr, mac}], switches:[{name, kind, dpid}],
//    links:[{a: "h1:eth0", b: "s1:eth1", a_if, b_if, mtu, params:{...}}]}
// and optionally a case record with "link_bytes" {"<ifname in core ns>": bytes} and
// "tests_elapsed_s".
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace flowlab::lab {

std::string render_topology_svg(const nlohmann::json& topology, const nlohmann::json& case_rec = nullptr);

}  // namespace flowlab::lab
