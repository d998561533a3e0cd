module cgolaunch

go 1.26
