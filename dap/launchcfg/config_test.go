package launchcfg

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestLaunchConfigDecoding(t *testing.T) {
	var cfg LaunchConfig
	raw := `{"type":"java","request":"launch","mainClass":"a.B","args":"one \"two three\"","vmArgs":["-Xmx1g"],"env":{"K":"V"}}`
	if err := Decode("launch", json.RawMessage(raw), &cfg); err != nil {
		t.Fatal(err)
	}
	if strings.Join(cfg.Args, "|") != "one|two three" || cfg.VMArgs[0] != "-Xmx1g" || cfg.Env["K"] != "V" {
		t.Errorf("decoded %+v", cfg)
	}
	if err := (&LaunchConfig{MainClass: "src/App.java"}).Validate(); err == nil || !strings.Contains(err.Error(), "not a class name") {
		t.Errorf("file as main class: %v", err)
	}
	var ac AttachConfig
	if err := Decode("attach", json.RawMessage(`{"processId":"1234"}`), &ac); err != nil || ac.ProcessID != 1234 {
		t.Errorf("processId as a string: %v %d", err, ac.ProcessID)
	}
	if err := Decode("attach", json.RawMessage(`{"processId":"abc"}`), &ac); err == nil || !strings.Contains(err.Error(), `field "processId"`) {
		t.Errorf("bad processId: %v", err)
	}
	if err := Decode("attach", nil, &ac); err == nil || !strings.Contains(err.Error(), "no arguments") {
		t.Errorf("no arguments: %v", err)
	}
}
