# Sourced by every guest test: . /usr/lib/tierswap/lib.sh
# Loads the helpers of each concern from /usr/lib/tierswap/lib/*.sh.
for _f in /usr/lib/tierswap/lib/*.sh; do
	[ -r "$_f" ] && . "$_f"
done
unset _f
