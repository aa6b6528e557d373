module killpoint.invalid/foreign/gorename

go 1.19
