# Seconds of guest uptime each test took, from a boot's results.log (the
# "### begin NAME ... up=S" and "### end NAME rc=N up=S" markers of /init).
# Prints "NAME<TAB>SECONDS" per test in run order; "-" for a test that began
# and never ended (the guest died or was killed), nothing for one never begun.
# With -v last=1: only the last uptime the boot reported ("### guest done"
# when it finished), whole seconds: its guest time, the boot included.
{ sub(/\r$/, "") }
$1 == "###" && $2 == "guest" && ($3 == "up" || $3 == "done") { lastup = $4 }
{ for (i = 1; i <= NF; i++) if ($i ~ /^up=[0-9.]+$/) lastup = substr($i, 4) }
function upval(   i) {
	for (i = 3; i <= NF; i++) if ($i ~ /^up=[0-9.]+$/) return substr($i, 4)
	return ""
}
$1 == "###" && $2 == "begin" { order[++n] = $3; began[$3] = upval(); next }
$1 == "###" && $2 == "end" { ended[$3] = upval(); next }
END {
	if (last) {
		printf "%.0f\n", lastup
		exit
	}
	for (i = 1; i <= n; i++) {
		t = order[i]
		if (t in ended && ended[t] != "" && began[t] != "")
			printf "%s\t%.1f\n", t, ended[t] - began[t]
		else
			printf "%s\t-\n", t
	}
}
