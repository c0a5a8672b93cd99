// kvplan-gui: the desktop capacity planner.
//   kvplan-gui                       opens the window
//   kvplan-gui --screenshot DIR      renders every view to DIR/*.png and exits (docs/images)
//   kvplan-gui --deployment FILE     opens a deployment file at start
#include <QApplication>
#include <QCommandLineParser>
#include <QEventLoop>
#include <QTimer>
#include <cstdio>

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

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("kvplan-gui");
  QApplication::setApplicationVersion(QString::fromStdString(std::string(kvplan::kVersion)));
  QCommandLineParser cli;
  cli.setApplicationDescription("kvplan: KV-cache capacity planning for LLM serving");
  cli.addHelpOption();
  cli.addVersionOption();
  QCommandLineOption shot("screenshot", "Render every view to DIR/*.png and exit.", "DIR");
  QCommandLineOption deploy("deployment", "Open a deployment JSON file at start.", "FILE");
  cli.addOption(shot);
  cli.addOption(deploy);
  cli.process(app);

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
