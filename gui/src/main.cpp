// kvplan-gui: the desktop capacity planner.
//   kvplan-gui                       opens the window
//   kvplan-gui --screenshot DIR      renders every view to DIR/*.png and exits (docs/images)
//   kvplan-gui --deployment FILE     opens a deployment file at start
#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>
#include <cstdio>

#include "kvplan/version.hpp"
#include "main_window.hpp"

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
