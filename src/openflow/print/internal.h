// Private pieces of ofp-print shared between print.cpp and print_stats.cpp.
#pragma once

#include <string>

#include "openflow/message.h"

namespace flowlab::of::print {

std::string multipart_kind(MultipartType t);
std::string table_config(uint32_t config, const std::optional<TableVacancy>& vacancy);  // a 1.4 table-mod's
// Text after the header's ':' for multipart bodies (starts with ' ' or '\n', no trailing newline).
std::string reply_body(const MultipartReply& r, uint8_t version);
std::string request_body(const MultipartRequest& r);

}  // namespace flowlab::of::print
