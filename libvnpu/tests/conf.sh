# Sourced by run.sh and bench.sh: writes a one-device vnpu.conf as the device plugin does, with the
# chip's region (made by $BUILD/tests/make_region) and the container's books directory beside it.
# Usage: vnpu_conf DIR DIE QUOTA CORES POLICY; prints the config's path.
vnpu_conf() {
    local dir=$1 die=$2
    mkdir -p "$dir/books"
    [ -e "$dir/region" ] || "$BUILD/tests/make_region" "$dir/region" "$die"
    cat > "$dir/vnpu.conf" <<CONF
version=3
pod.uid=$die-uid
pod.namespace=test
pod.name=$die
container=main
books_dir=$dir/books
log.level=warn
priority=online
devices=1
device.0.die_id=$die
device.0.memory_bytes=$3
device.0.cores=$4
device.0.policy=$5
device.0.region=$dir/region
CONF
    echo "$dir/vnpu.conf"
}
