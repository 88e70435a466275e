# This machine's environment for its Creel daemons: sbin/creel-daemon.sh reads this file (also when
# sbin/start-cluster.sh runs it over ssh) before it starts or stops a daemon. Uncomment what this
# machine needs; the values shown are examples, the defaults are in the comments.

# The Java to run (default: java on the PATH).
# export JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64

# JVM options of the daemons, e.g. the namenode's heap (about 130 bytes a node; default: the JVM's).
# export CREEL_JAVA_OPTS="-Xmx4g"

# Log files (default: $CREEL_HOME/logs) and pid files (default: /tmp).
# export CREEL_LOG_DIR=/var/log/creel
# export CREEL_PID_DIR=/var/run/creel

# Log level of the daemons (default: info; conf/log4j2.xml sets levels per package).
# export CREEL_LOG_LEVEL=info
