# The setting of each option that a list of config fragments leaves in
# force (merge_config.sh: a later fragment overrides an earlier one), in
# the order options first appear: one "CONFIG_X=v" or
# "# CONFIG_X is not set" line per option; other lines are dropped.
match($0, /^CONFIG_[A-Za-z0-9_]+=/) { opt = substr($0, 1, RLENGTH - 1) }
/^# CONFIG_[A-Za-z0-9_]+ is not set$/ { opt = $2 }
opt != "" {
	if (!(opt in val))
		order[++n] = opt
	val[opt] = $0
	opt = ""
}
END { for (i = 1; i <= n; i++) print val[order[i]] }
