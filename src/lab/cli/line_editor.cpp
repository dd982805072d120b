// The CLI's terminal: libedit's line editing (emacs keys), history (Up arrow,
// ~/.flowlab_mininet_history) and Tab completion of commands and node names on a
// terminal; plain lines from a pipe or a file. See mininet_cli.h.
#include <histedit.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>

#include "lab/cli/mininet_cli.h"
#include "lab/host/process.h"
#include "lab/run/persistent_lab.h"

namespace flowlab::lab {

namespace {

char* prompt(EditLine*) { return const_cast<char*>("mininet> "); }  // libedit never writes it

std::vector<std::string> words_of(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Tab: the one match completed (and a space), or the matches' common part, or the
// matches listed under the line when they share nothing more.
unsigned char complete(EditLine* el, int) {
  void* data = nullptr;
  el_get(el, EL_CLIENTDATA, &data);
  const auto* cli = static_cast<const MininetCli*>(data);
  const LineInfo* li = el_line(el);
  std::string before(li->buffer, size_t(li->cursor - li->buffer));
  size_t ws = before.find_last_of(" \t");
  std::string prefix = ws == std::string::npos ? before : before.substr(ws + 1);
  auto matches = cli->complete(words_of(ws == std::string::npos ? "" : before.substr(0, ws)), prefix);
  if (matches.empty()) return CC_ERROR;
  if (matches.size() == 1) {
    std::string add = matches[0].substr(prefix.size()) + " ";
    return el_insertstr(el, add.c_str()) == 0 ? CC_REFRESH : CC_ERROR;
  }
  std::string common = matches[0];
  for (const auto& m : matches) {
    size_t k = 0;
    while (k < common.size() && k < m.size() && common[k] == m[k]) ++k;
    common.resize(k);
  }
  if (common.size() > prefix.size())
    return el_insertstr(el, common.substr(prefix.size()).c_str()) == 0 ? CC_REFRESH : CC_ERROR;
  std::string list = "\n";
  for (const auto& m : matches) list += m + "  ";
  list += "\n";
  std::fputs(list.c_str(), stdout);
  std::fflush(stdout);
  return CC_REDISPLAY;
}

void run_terminal(MininetCli& cli) {
  EditLine* el = el_init("flowlab", stdin, stdout, stderr);
  History* hist = history_init();
  HistEvent ev;
  history(hist, &ev, H_SETSIZE, 1000);
  history(hist, &ev, H_SETUNIQUE, 1);
  std::string hist_file;
  if (const char* home = std::getenv("HOME"); home && *home) {
    hist_file = std::string(home) + "/.flowlab_mininet_history";
    history(hist, &ev, H_LOAD, hist_file.c_str());
  }
  el_set(el, EL_EDITOR, "emacs");
  el_set(el, EL_PROMPT, &prompt);
  el_set(el, EL_HIST, history, hist);
  el_set(el, EL_CLIENTDATA, static_cast<void*>(&cli));
  // The wide call: libedit keeps these pointers, where el_set's narrow one keeps
  // copies it never frees (196 bytes LeakSanitizer reported at exit).
  el_wset(el, EL_ADDFN, L"flowlab-complete", L"complete a command or node name", &complete);
  el_set(el, EL_BIND, "^I", "flowlab-complete", nullptr);
  for (;;) {
    int n = 0;
    const char* raw = el_gets(el, &n);
    if (!raw || n <= 0) {  // Ctrl-D on an empty line, or the terminal gone
      std::fputs("\n", stdout);
      break;
    }
    std::string line(raw, size_t(n));
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    if (line.find_first_not_of(" \t") != std::string::npos) history(hist, &ev, H_ENTER, line.c_str());
    if (!cli.run_line(line)) break;
  }
  if (!hist_file.empty()) history(hist, &ev, H_SAVE, hist_file.c_str());
  history_end(hist);
  el_end(el);
}

}  // namespace

Status run_mininet_cli(const std::string& lab_id) {
  FLOWLAB_ASSIGN_OR_RETURN(nlohmann::json rec, running_lab_record(lab_id));
  if (rec.contains("across"))
    return fail("lab '{}' spans machines: the CLI drives labs on one machine (use flowlab lab exec)", lab_id);
  FLOWLAB_ASSIGN_OR_RETURN(LabView view, lab_view(rec));
  MininetCli cli(std::move(view), self_binary());
  // Ctrl-C belongs to the command running under the prompt, not to the CLI (which
  // leaves at exit or Ctrl-D); a terminal that goes away ends the CLI at its next read.
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  struct sigaction old_int {
  }, old_hup{}, old_pipe{};
  sigaction(SIGINT, &ign, &old_int);
  sigaction(SIGHUP, &ign, &old_hup);
  sigaction(SIGPIPE, &ign, &old_pipe);
  if (isatty(STDIN_FILENO)) {
    run_terminal(cli);
  } else {
    for (std::string line; std::getline(std::cin, line);)
      if (!cli.run_line(line)) break;
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGHUP, &old_hup, nullptr);
  sigaction(SIGPIPE, &old_pipe, nullptr);
  return ok_status();
}

Result<int> up_with_cli(const std::string& label, const std::string& text, const std::string& only_case,
                        const std::string& out_dir, const CaptureOptions& capture, bool metrics,
                        bool keep_up) {
  std::string id;
  FLOWLAB_TRY(lab_up(label, text, only_case, out_dir, capture, metrics, {}, &id));
  Status st = run_mininet_cli(id);
  if (!st.ok()) std::fprintf(stderr, "flowlab lab: error: %s\n", st.error().message.c_str());
  if (keep_up) return st.ok() ? 0 : 1;
  std::fprintf(stderr, "*** Stopping lab %s\n", id.c_str());
  FLOWLAB_TRY(lab_down(id));
  std::fprintf(stderr, "*** Done\n");
  return st.ok() ? 0 : 1;
}

}  // namespace flowlab::lab
