// kvplan-gui: the desktop capacity planner.
//   kvplan-gui                       opens the window
//   kvplan-gui --screenshot DIR      renders every view to DIR/*.png and exits (docs/images)
//   kvplan-gui --deployment FILE     opens a deployment file at start
//   kvplan-gui --help | --version    prints and exits 0, with or without a display
#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QEventLoop>
#include <QTimer>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "kvplan/version.hpp"
#include "main_window.hpp"
#include "planner_model.hpp"
#include "replay_runner.hpp"
#include "replay_view.hpp"

namespace {

// The state the documentation screenshots show: Llama 3.1 8B on one H100 at 32K tokens, fp16
// pinned against 2-bit KIVI, and a finished replay of a synthetic trace.
void prepareScreenshots(kvplan::gui::MainWindow& w) {
  auto* m = w.planner();
  m->setContext(32768);
  m->setConcurrency(24);
  m->setKvFormat("kivi:bits=2,group=32,residual=128");
  m->pin(1);
  m->setKvFormat("fp16");
  m->pin(0);
  auto* replay = w.replayView();
  if (!replay->writeSyntheticTrace(1024)) return;
  QEventLoop loop;
  QObject::connect(replay->runner(), &kvplan::gui::ReplayRunner::finished, &loop,
                   &QEventLoop::quit);
  replay->run();
  if (replay->runner()->isRunning()) loop.exec();
}

// The options, one definition for both parsers below.
struct Options {
  QCommandLineOption shot{"screenshot", "Render every view to DIR/*.png and exit.", "DIR"};
  QCommandLineOption deploy{"deployment", "Open a deployment JSON file at start.", "FILE"};
};

void describe(QCommandLineParser& cli, const Options& o) {
  QCoreApplication::setApplicationName("kvplan-gui");
  QCoreApplication::setApplicationVersion(QString::fromStdString(std::string(kvplan::kVersion)));
  cli.setApplicationDescription(
      "kvplan: KV-cache capacity planning for LLM serving\n\n"
      "Example:\n  kvplan-gui --deployment examples/deploy.json");
  cli.addHelpOption();
  cli.addVersionOption();
  cli.addOption(o.shot);
  cli.addOption(o.deploy);
}

// QCommandLineParser::process, except that a bad option exits 2, kvplan's code for bad input
// (process exits 1): --help and --version print and exit 0.
void process(QCommandLineParser& cli, const QCoreApplication& app) {
  if (!cli.parse(QCoreApplication::arguments())) {
    std::fprintf(stderr, "kvplan-gui: error: %s (see kvplan-gui --help)\n",
                 qPrintable(cli.errorText()));
    std::exit(2);
  }
  cli.process(app);
}

// True when the arguments ask for help or the version (the values of --screenshot and
// --deployment skipped, nothing after "--"): QApplication needs a display (it aborts without
// one), so these are answered by a QCoreApplication, which needs none.
bool asks_help_or_version(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--") return false;
    if (a == "--screenshot" || a == "--deployment") {
      ++i;
      continue;
    }
    if (a == "-h" || a == "--help" || a == "-?" || a == "--help-all" || a == "-v" ||
        a == "--version")
      return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const Options opts;
  if (asks_help_or_version(argc, argv)) {
    QCoreApplication core(argc, argv);
    QCommandLineParser cli;
    describe(cli, opts);
    process(cli, core);  // prints the help or the version and exits 0 (a bad option: 2)
    return 0;
  }
  QApplication app(argc, argv);
  QCommandLineParser cli;
  describe(cli, opts);
  const QCommandLineOption& shot = opts.shot;
  const QCommandLineOption& deploy = opts.deploy;
  process(cli, app);

  kvplan::gui::MainWindow w;
  if (cli.isSet(deploy)) w.openDeployment(cli.value(deploy));
  w.resize(1480, 940);
  w.show();
  if (cli.isSet(shot)) {
    prepareScreenshots(w);
    int rc = 0;
    QTimer::singleShot(300, &app, [&] {
      if (!w.screenshots(cli.value(shot))) {
        std::fprintf(stderr, "kvplan-gui: %s\n", qPrintable(w.lastError()));
        rc = 1;
      }
      app.exit(rc);
    });
    return app.exec();
  }
  return app.exec();
}
