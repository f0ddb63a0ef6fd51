#!/bin/sh
# The image's health check (BOOT-11): healthy once the bot has started, that is once the pid
# file it writes after its single-instance check (DATA_DIR/state/bot.pid) names a live process
# whose command is ollim-bot. Until then the entrypoint may still be waiting or pulling a model.
# It does not check Discord or the model API: `ollim-bot doctor` does.
data_dir=${OLLIM_DATA_DIR:-}
case $data_dir in
  '') data_dir=${HOME:-}/.ollim-bot ;;
  '~/'*) data_dir=${HOME:-}/${data_dir#'~/'} ;;
esac
pid_file=$data_dir/state/bot.pid

pid=$(cat "$pid_file" 2>/dev/null) || {
  echo "no $pid_file yet: the bot has not started"
  exit 1
}
case $pid in
  '' | *[!0-9]*)
    echo "$pid_file holds no pid"
    exit 1
    ;;
esac
# The first word of the process's command line, as /proc shows it to anyone.
command=$(tr '\0' '\n' 2>/dev/null <"/proc/$pid/cmdline" | head -n 1)
case ${command##*/} in
  ollim-bot) exit 0 ;;
  '')
    echo "pid $pid (from $pid_file) is not running"
    exit 1
    ;;
  *)
    echo "pid $pid (from $pid_file) is $command, not ollim-bot"
    exit 1
    ;;
esac
