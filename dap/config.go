package dap

import "github.com/ddmbridge/ddmbridge/dap/launchcfg"

// The launch and attach arguments are package launchcfg's; these names
// keep them where a client of package dap looks for them.
type (
	LaunchConfig = launchcfg.LaunchConfig
	AttachConfig = launchcfg.AttachConfig
	CommonConfig = launchcfg.CommonConfig
	StepFilters  = launchcfg.StepFilters
	StringList   = launchcfg.StringList
	FlexInt      = launchcfg.FlexInt
)

// CheckConfig validates the arguments of a launch or attach request as the
// adapter will, without starting anything (see launchcfg.Check).
var CheckConfig = launchcfg.Check
