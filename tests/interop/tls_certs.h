// Certificates for TLS interop tests, made with the openssl CLI in `dir`:
// ca.pem/ca.key (the CA both sides trust), ctl.pem/ctl.key and sw.pem/sw.key
// signed by it, and bad.pem/bad.key signed by a second CA ("other") that
// nobody trusts. RSA 2048, valid two days.
#pragma once

#include <cstdio>
#include <string>

namespace flowlab::interop {

inline bool make_test_certs(const std::string& dir, std::string* error) {
  // (dir must not contain quotes or spaces: the tests use /tmp/flowlab-...-PID)
  std::string cmd =
      "cd " + dir +
      " && for ca in ca other; do openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=$ca"
      " -keyout $ca.key -out $ca.pem || exit 1; done"
      " && for c in ctl:ca sw:ca bad:other; do n=${c%:*}; ca=${c#*:};"
      " openssl req -newkey rsa:2048 -nodes -subj /CN=$n -keyout $n.key -out $n.csr"
      " && openssl x509 -req -in $n.csr -CA $ca.pem -CAkey $ca.key -CAcreateserial -days 2"
      " -out $n.pem || exit 1; done";
  std::string full = "bash -c '" + cmd + "' 2>&1";
  FILE* p = popen(full.c_str(), "r");
  if (!p) {
    *error = "cannot run openssl";
    return false;
  }
  std::string out;
  char buf[512];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  int st = pclose(p);
  if (st != 0) *error = "openssl failed: " + out;
  return st == 0;
}

}  // namespace flowlab::interop
