package localjvm

import (
	"strings"
	"testing"
)

func TestAgentAddress(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
		err  string
	}{
		{[]string{"java", "-agentlib:jdwp=transport=dt_socket,server=y,address=*:5005", "App"}, "127.0.0.1:5005", ""},
		{[]string{"java", "-Xrunjdwp:transport=dt_socket,server=y,address=10.0.0.2:8000"}, "10.0.0.2:8000", ""},
		{[]string{"java", "App"}, "", "no JDWP agent"},
		{[]string{"java", "-agentlib:jdwp=transport=dt_socket,server=n,address=5005"}, "", "server=n"},
		{[]string{"java", "-agentlib:jdwp=transport=dt_socket,server=y,address=0"}, "", "no usable port"},
	} {
		got, err := AgentAddress(1, tc.args)
		if got != tc.want || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%v: %q, %v; want %q, %q", tc.args, got, err, tc.want, tc.err)
		}
	}
	if m := mainOf([]string{"java", "-cp", "a:b", "-Dx=y", "com.x.Main", "arg"}); m != "com.x.Main" {
		t.Errorf("main %q", m)
	}
	if m := mainOf([]string{"java", "-jar", "app.jar"}); m != "app.jar" {
		t.Errorf("main of -jar %q", m)
	}
}
