# Sourced by the image's `creel` and `creel-health`: the configuration a process in the container
# runs with, as one site file. Three layers, later ones winning:
#   1. /opt/creel/docker/image.conf        the image's defaults (paths inside the image)
#   2. $CREEL_CONF_DIR/creel-site.conf     the site file; mount yours at /etc/creel/creel-site.conf
#   3. CREEL_<KEY> environment variables   CREEL_STORAGE_DRAM_SIZE=2g sets creel.storage.dram.size
# Creel's keys are lower case words joined by dots, so the mapping is lower-casing and '_' -> '.'.
# CREEL_HOME, CREEL_CONF_DIR and CREEL_JAVA_OPTS keep their bin/creel meaning and are not keys; any
# other CREEL_* variable is a setting, and one naming no key stops the command at start, naming it.
# bin/creel reads CREEL_<KEY> variables itself too (io.creel.common.conf.ConfLayers, on every
# machine); merging them here as well keeps this file the whole story for creel-health, which reads
# the HTTP port from it, and keeps the image strict about every CREEL_* name.

CREEL_IMAGE_DEFAULTS=/opt/creel/docker/image.conf

# Prints the directory of the merged site file, creating it when needed. The directory is named by
# the hash of its content: commands started at once with the same settings share it, and ones with
# other settings (docker exec -e ...) never see a half-written or foreign file.
creel_merged_conf_dir() {
  local site_dir=${CREEL_CONF_DIR:-/etc/creel}
  local site=$site_dir/creel-site.conf
  if [ -n "${CREEL_CONF_DIR:-}" ] && [ ! -f "$site" ]; then
    echo "creel: CREEL_CONF_DIR is $CREEL_CONF_DIR but $site does not exist" >&2
    return 1
  fi
  local content name key value
  content=$(
    echo "# Merged by /opt/creel/docker/creel-conf.sh: image defaults, site file, CREEL_* environment."
    cat "$CREEL_IMAGE_DEFAULTS"
    if [ -f "$site" ]; then
      echo "# --- $site"
      cat "$site"
      echo
    fi
    echo "# --- environment"
    while IFS= read -r name; do
      case "$name" in
        CREEL_HOME|CREEL_CONF_DIR|CREEL_JAVA_OPTS) continue ;;
      esac
      value=${!name}
      if [[ "$value" == *$'\n'* ]]; then
        echo "creel: environment variable $name holds a line break; a setting is one line" >&2
        return 1
      fi
      key=$(echo "${name#CREEL_}" | tr 'A-Z_' 'a-z.')
      # java.util.Properties reads a backslash as an escape: keep it literal.
      echo "creel.$key = ${value//\\/\\\\}"
    done < <(compgen -e | grep -E '^CREEL_[A-Z0-9_]+$' | sort)
  ) || return 1
  local hash dir tmp
  hash=$(printf '%s' "$content" | sha1sum | cut -c1-16)
  dir=${TMPDIR:-/tmp}/creel-conf-$(id -u)-$hash
  if [ ! -f "$dir/creel-site.conf" ]; then
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/creel-conf.XXXXXX")
    printf '%s\n' "$content" >"$tmp/creel-site.conf"
    # Another command may have made the same directory meanwhile: then its copy is used.
    mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
  fi
  echo "$dir"
}

# The value of one key in a merged site file (the last setting wins, as in java.util.Properties);
# empty when it is not set.
creel_conf_value() {
  local file=$1 key=${2//./\\.}
  sed -nE "s/^[[:space:]]*${key}[[:space:]]*[=:[:space:]][[:space:]]*(.*[^[:space:]])?[[:space:]]*\$/\\1/p" "$file" \
    | tail -n 1
}
